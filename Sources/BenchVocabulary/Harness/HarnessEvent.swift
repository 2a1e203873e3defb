import BenchCore
import Foundation
import AppProtocol

/// What the harness did, playing the operating system and the user.
public enum HarnessEvent: Sendable, Hashable {
    /// A scenario began under `profile` with `seed`.
    case scenarioStarted(name: String, profile: String, seed: UInt64)
    /// The scenario's script ended (or its time limit passed: `timedOut`).
    case scenarioFinished(name: String, timedOut: Bool)
    /// The network path the app was given (the interfaces up, in preference order).
    case pathGiven(interfaces: [InterfaceKind])
    /// The app answered the `setPath` that gave it `interfaces`, recorded on the thread
    /// that reads the app's output, as that reply was read: every app event recorded
    /// after it was written after the app had taken that path in (one output stream, in
    /// order), so it is the causal point from which the app knows it.
    case pathAcknowledged(interfaces: [InterfaceKind])
    /// A network step of the scenario (not of the profile, whose changes are the
    /// conditioner's `phaseApplied`): an interface of the conditioner was taken down
    /// (`mode`) or brought up (nil).
    case interfaceSet(InterfaceKind, up: Bool, mode: DownMode?)
    /// A window of the profile's `origin:` section opened (its `index` there, its
    /// `label`): the origin now answers requests whose path matches `path` with `fault`
    /// (in words), under the fault rule `rule` (the origin's log names it in `faultRuleID`).
    case originFaultBegan(index: Int, label: String?, path: String, fault: String, rule: String)
    /// The window `index` of the profile's `origin:` section closed: its rule was removed.
    case originFaultEnded(index: Int, label: String?, rule: String)
    /// The app went to the foreground or the background.
    case lifecycle(foreground: Bool)
    /// The license server was told the app is (not) in the background.
    case licenseServerBackground(Bool)
    /// The harness asked the app to get ready for the background (`prepareForBackground`
    /// sent): from here the app knows a background is coming.
    case preparingForBackground
    /// `prepareForBackground()` returned; `unfinished` names downloads without a license.
    case preparedForBackground(unfinished: [String])
    /// The user asked for a download of `video`; the engine answered `download`
    /// (a token) or refused (`error`).
    case downloadRequested(video: String, download: String?, allowsCellular: Bool, protected: Bool, error: String?)
    /// The download the harness was just given (`downloadRequested`, same instant) is of
    /// a protected video, whose license the harness knows from the catalog entry it sent:
    /// the license server's `assetID` and `keyID` (its `skd://asset/key` URI) and the
    /// `licenseURL` the entry names. Judges match the license server's log against it.
    case licenseKeyOf(download: String, assetID: String, keyID: String, licenseURL: String)
    /// Another user action on a download: pause, resume, cancel, delete.
    case userAction(action: String, download: String, error: String?)
    /// The user changed the cellular setting for later downloads.
    case allowsCellularSet(Bool)
    /// The harness killed the agent (SIGKILL) because of `reason`.
    case killed(pid: Int32, reason: String)
    /// The app's storage directory as the harness read it right after killing `pid`
    /// (reaped, not yet relaunched), each regular file identified by content alone:
    /// `stored` origin paths a file holds the whole of (SHA-256 equal to what the
    /// origin serves), `partial` origin path → the bytes a file holds of it (a strict
    /// prefix of the one resource of that content the app was fetching), `unknown`
    /// file path (relative) → size for anything else.
    case diskAtKill(pid: Int32, stored: [String], partial: [String: Int64], unknown: [String: Int64])
    /// At an inspection after the user cancelled or deleted `download`, what the harness
    /// found left of it in the app's storage: `stored` and `partial` origin paths of its
    /// video held by some file (by content, as at a kill), and `packageFiles`, files still
    /// under the directory of the package the app had named for it (empty when it named none).
    case leftAfterRemoval(download: String, stored: [String], partial: [String: Int64], packageFiles: [String])
    /// While the user had `download` paused, what the harness found of its video in the
    /// app's storage, by content (as at a kill): `stored` origin paths some file holds
    /// whole, `partial` origin path → the bytes a file holds of it. Read twice per
    /// pause: a second after the app answered it, and just before the user resumes it.
    case diskWhilePaused(download: String, stored: [String], partial: [String: Int64])
    /// `--storage-sync`: before a read of the app's storage for `read` (`kill`, `paused`,
    /// `removal`, `downloaded`, `inspected`), the harness emptied its local copy and ran
    /// the sync command, which took `seconds`; `error` says how it failed (the read was
    /// then not made, and the scenario ends with that error).
    case storageSynced(read: String, seconds: Double, error: String?)
    /// The agent was launched (again), told the previous process ended as `after`.
    case launched(pid: Int32, after: RelaunchKind)
    /// The app answered `hello`: its name and version, and the capabilities it declares.
    case helloAnswered(app: String, capabilities: [String])
    /// The app answered an `inspect` with this (claims: what it says it stored).
    case inspected(AppInspection)
    /// The harness read the app's offline package of `download` itself (`cause`: the app
    /// reported it downloaded, or answered an `inspect`) from its master playlist at
    /// `master`, and matched it with the origin: `found`. `master` is nil when the app
    /// reported the download downloaded but named no package (`found.problems` says so).
    case packageRead(download: String, master: String?, cause: PackageReadCause, found: PackageFindings)
    /// The agent exited by itself with `status`.
    case agentExited(pid: Int32, status: Int32)
    /// A note for the report (e.g. "trigger progress ≥ 0.5 met").
    case note(String)
    /// `bench compare`: a black-box client's command was started (`attempt` 1, then 2
    /// for the rerun after a kill) under `mode`.
    case clientLaunched(client: String, mode: String, pid: Int32, attempt: Int)
    /// `bench compare`: a client's command ended with `status` (128 + 9 when killed).
    case clientExited(client: String, pid: Int32, status: Int32)
}
