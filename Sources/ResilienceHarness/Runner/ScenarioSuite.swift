import BenchCore
import Foundation
import AppProtocol

/// The scenario suite of DESIGN.md §5. Each script brings up the interfaces it needs
/// (everything starts down), launches the app, acts, and inspects what was stored so
/// the properties can judge integrity, cleanup and playback.
public enum ScenarioSuite {
    /// Every scenario, in the order a run plays them.
    public static let all: [Scenario] = [
        autoSuspend, cellularPolicy, crashRecovery, licenseBeforeBackground, housekeeping, profileTimeline,
    ]

    /// The scenario named `name`, nil when there is none.
    public static func named(_ name: String) -> Scenario? {
        all.first { $0.name == name }
    }

    /// States a download waits in when it cannot go on, or has finished.
    static let waiting: Set<AppState> = [
        .suspended(.network), .suspended(.cellularNotAllowed), .failed, .downloaded,
    ]

    /// One download per down mode: WiFi (the only interface) goes down a quarter of the
    /// way through, in that mode, long enough to suspend, then returns.
    public static let autoSuspend = Scenario(
        name: "auto-suspend-on-disconnect",
        summary: "WiFi, the only interface, goes down during a download in each mode (reset, refuse, blackhole "
            + "with no path update); the download must suspend for the network, never fail, resume and complete byte-exact.",
        // Integrity is judged whenever a download completed; not asserted here, so that an
        // app that fails instead of suspending is reported for exactly that.
        asserts: ["auto-suspend-on-disconnect", "bounded-retries"], needs: [.licenses, .inspect],
        preconditions: DownMode.allCases.map(ScenarioPreconditions.outageHitATransfer)
    ) { s in
        await s.setInterface(.wifi, up: true)
        try await s.waitForPath([.wifi])
        try await s.launch()
        for (video, mode) in [("clear", DownMode.reset), ("http-key", .refuse), ("protected", .blackhole)] {
            let token = try await s.request(video)
            try await s.wait("\(video) at 25 %") { $0.progress(token) >= 0.25 || waiting.contains($0.states[token] ?? .requested) }
            await s.setInterface(.wifi, up: false, mode: mode, publish: mode != .blackhole)
            try await s.wait("\(video) to stop for the outage (\(mode.rawValue))", timeout: .seconds(30)) {
                waiting.contains($0.states[token] ?? .requested)
            }
            try await s.hold(.seconds(2))
            await s.setInterface(.wifi, up: true)
            try await s.waitSettled([token])
            try await s.inspect(token)
        }
    }

    /// WiFi goes away with cellular up: a download not allowed cellular waits, one
    /// allowed continues; the setting changed mid-download applies to the later one only.
    public static let cellularPolicy = Scenario(
        name: "cellular-policy",
        summary: "WiFi goes away with cellular up: the download requested while cellular was not allowed moves no "
            + "byte over cellular and waits; the one requested after the user allowed cellular continues over it.",
        asserts: ["cellular-policy", "integrity"], needs: [.cellularSetting, .inspect],
        preconditions: [ScenarioPreconditions.cellularOnlyDuringDownloads]
    ) { s in
        await s.setInterface(.wifi, up: true)
        await s.setInterface(.cellular, up: true)
        try await s.waitForPath([.wifi, .cellular])
        try await s.launch()
        try await s.setAllowsCellular(false)
        let notAllowed = try await s.request("clear")
        try await s.wait("clear at 15 %") { $0.progress(notAllowed) >= 0.15 }
        try await s.setAllowsCellular(true)
        let allowed = try await s.request("http-key")
        try await s.wait("http-key under way") { $0.progress(allowed) > 0 || $0.states[allowed] == .downloaded }
        await s.setInterface(.wifi, up: false, mode: .reset)
        try await s.wait("clear to wait for WiFi", timeout: .seconds(30)) {
            waiting.contains($0.states[notAllowed] ?? .requested)
        }
        try await s.waitSettled([allowed])
        try await s.hold(.seconds(2))
        await s.setInterface(.wifi, up: true)
        try await s.waitSettled([notAllowed])
        for token in [notAllowed, allowed] { try await s.inspect(token) }
    }

    /// SIGKILL at three seeded points (after a random number of segments stored since
    /// the launch, once the origin has begun sending the next segment, so that bytes are
    /// in flight), each during a download, relaunch told it crashed (once: killed for
    /// memory); then a force-quit relaunch, and a reboot while the app was suspended in
    /// the background.
    public static let crashRecovery = Scenario(
        name: "crash-recovery",
        summary: "The app is killed (SIGKILL) three times at seeded points during downloads and relaunched told it "
            + "crashed or was killed for memory: every download completes byte-exact with no stored segment fetched "
            + "again and every partial segment resumed by Range; after a force-quit, and after a reboot while "
            + "suspended in the background, the interrupted download is reported failed at once.",
        asserts: ["crash-recovery", "integrity", "cancel-delete-clean"],
        needs: [.crashRecovery, .relaunchAfterForceQuit, .licenses, .cancelAndDelete, .inspect], minimumCrashRestarts: 3,
        preconditions: [
            ScenarioPreconditions.killsWithBytesInFlight(3), ScenarioPreconditions.relaunchInterrupting(.userForceQuit),
            ScenarioPreconditions.relaunchInterrupting(.rebootWhileSuspended),
        ]
    ) { s in
        await s.setInterface(.wifi, up: true)
        try await s.waitForPath([.wifi])
        try await s.launch()
        var tokens = [try await s.request("clear"), try await s.request("protected")]
        // Started when the others finished before a seeded point, so that every kill
        // lands during a download.
        var spares = ["large", ScenarioNetwork.extraLarge][...]
        for round in 1...3 {
            let segments = await s.random(2...6)
            let current = tokens
            try await s.wait("\(segments) segments stored (crash \(round))") { live in
                live.segmentsSinceLaunch >= segments || current.allSatisfy { [.downloaded, .failed].contains(live.states[$0]) }
            }
            var point = "\(segments) segments stored since the launch"
            if await s.allSettled(tokens), let spare = spares.popFirst() {
                let token = try await s.request(spare)
                tokens.append(token)
                try await s.wait("\(spare): 2 segments stored (crash \(round))") { live in
                    (live.segments[token] ?? 0) >= 2 || [.downloaded, .failed].contains(live.states[token])
                }
                point = "the downloads finished early; 2 segments into \(spare)"
            }
            try await s.waitForMediaResponse()  // a kill counts only with bytes in flight
            await s.note("crash \(round) of 3: SIGKILL after \(point)")
            try await s.crashAndRelaunch(round == 2 ? .memoryPressure : .crash)
        }
        try await s.waitSettled(tokens)
        for token in tokens { try await s.inspect(token) }
        let interrupted = try await s.request("http-key")
        try await s.wait("http-key at 20 %") { $0.progress(interrupted) >= 0.2 || $0.states[interrupted] == .downloaded }
        try await s.crashAndRelaunch(.userForceQuit)
        // Only `failed` is right after a force-quit: a download reported downloaded (or
        // still running) fails crash-recovery, and the wait ends at its bound either way.
        try? await s.wait("the interrupted download reported failed", timeout: .seconds(15)) {
            $0.states[interrupted] == .failed
        }
        try await s.user(.delete, interrupted)
        try await s.inspect(interrupted)
        let suspended = try await s.request("multilang")
        try await s.wait("multilang at 20 %") { $0.progress(suspended) >= 0.2 || $0.states[suspended] == .downloaded }
        try await s.setForeground(false)
        try await s.crashAndRelaunch(.rebootWhileSuspended, inForeground: true)
        try? await s.wait("the download interrupted by the reboot reported failed", timeout: .seconds(15)) {
            $0.states[suspended] == .failed
        }
        try await s.user(.delete, suspended)
        try await s.inspect(suspended)
    }

    /// Four protected downloads queued against a slow license server (one of them the
    /// multi-DRM video, whose playlists list the `skd://` key with Widevine and PlayReady
    /// keys), then `prepareForBackground()` and the background.
    public static let licenseBeforeBackground = Scenario(
        name: "license-before-background",
        summary: "The license server answers 1.5 s late (it issues at once; the response waits), four protected "
            + "downloads are queued (one multi-DRM: its playlists list the skd:// key among Widevine and PlayReady "
            + "keys), then the app calls prepareForBackground() and goes to the background: a license "
            + "for each must have reached the app (its response ended, in the origin's log) before the background and "
            + "before its first encrypted segment started, no license request may reach the server in the background, "
            + "and the app may claim licenseAcquired only after its license arrived.",
        asserts: ["license-before-background", "integrity"], needs: [.licenses, .inspect],
        preconditions: [ScenarioPreconditions.licenseExchangeBeforeBackground]
    ) { s in
        // Slow enough that an app which does not wait for its license shows it: its first
        // encrypted segments start, or it goes to the background, before the license arrives.
        try await s.slowLicenseServer(by: .milliseconds(1500))
        await s.setInterface(.wifi, up: true)
        try await s.waitForPath([.wifi])
        try await s.launch()
        var tokens: [String] = []
        for video in ["protected", "protected-b", "protected-c", "multi-drm"] { tokens.append(try await s.request(video)) }
        try await s.prepareForBackground()
        try await s.setForeground(false)
        try await s.hold(.seconds(4))
        try await s.setForeground(true)
        try await s.waitSettled(tokens)
        for token in tokens { try await s.inspect(token) }
    }

    /// Pause and resume, cancel, delete, the offline package with no network, and a
    /// rental that expires.
    public static let housekeeping = Scenario(
        name: "housekeeping",
        summary: "A download is paused mid-way (no segment of it may be fetched while paused) and resumed (it must "
            + "complete byte-exact), one is cancelled mid-way and two are deleted (nothing may be left behind), a "
            + "finished package is opened with every interface down (it must play), and a 12 s rental is opened "
            + "after it expired (it must refuse to play).",
        asserts: ["pause-holds", "cancel-delete-clean", "offline-playback", "expired-rental-refuses-playback", "integrity"],
        needs: [.pause, .cancelAndDelete, .licenses, .rentals, .inspect],
        preconditions: [
            ScenarioPreconditions.pauseDuringATransfer, ScenarioPreconditions.cancelOfAnIncompleteDownload,
            ScenarioPreconditions.offlineInspection, ScenarioPreconditions.inspectionAfterARentalExpired,
        ]
    ) { s in
        await s.setInterface(.wifi, up: true)
        try await s.waitForPath([.wifi])
        try await s.launch()
        let kept = try await s.request("clear")
        let canceled = try await s.request("http-key")
        try await s.wait("clear at 15 %") { $0.progress(kept) >= 0.15 }
        try await s.user(.pause, kept)
        try await s.wait("clear paused", timeout: .seconds(15)) { $0.states[kept] == .suspended(.user) }
        let resumeAt = ContinuousClock.now + .seconds(4)
        try await s.wait("http-key at 20 %") { $0.progress(canceled) >= 0.2 || $0.states[canceled] == .downloaded }
        try await s.user(.cancel, canceled)
        try await s.wait("the cancelled download to be gone", timeout: .seconds(30)) {
            $0.states[canceled] == .notDownloaded
        }
        try await s.inspect(canceled)
        if ContinuousClock.now < resumeAt { try await s.hold(resumeAt - ContinuousClock.now) }
        try await s.user(.resume, kept)
        try await s.waitSettled([kept])
        let rentalStart = ContinuousClock.now
        let rental = try await s.request("protected", rentalSeconds: 12)
        try await s.waitSettled([rental])
        try await s.inspect(rental)
        await s.setInterface(.wifi, up: false, mode: .reset)
        try await s.waitForPath([])
        try await s.inspect(kept)
        let expiry = rentalStart + .seconds(14)
        if ContinuousClock.now < expiry { try await s.hold(expiry - ContinuousClock.now) }
        try await s.inspect(rental)
        for token in [kept, rental] {
            try await s.user(.delete, token)
            try await s.inspect(token)
        }
        await s.setInterface(.wifi, up: true)
    }
}

extension ScenarioSuite {
    /// The profile's own timeline plays (its drops, handoffs, tunnels and link changes)
    /// under two long downloads, one allowed cellular and one not.
    public static let profileTimeline = Scenario(
        name: "profile-timeline",
        summary: "The profile's own timeline plays (up to 3 minutes) under two long downloads, one not allowed "
            + "cellular and one allowed it: every property is judged over whatever the profile does; a download still "
            + "waiting for an allowed interface when the window closes is cancelled by the user.",
        asserts: [], needs: [.cellularSetting, .cancelAndDelete, .inspect], targetSeconds: 100, interfacesStart: .asProfile
    ) { s in
        let window = ContinuousClock.now + min(s.profile.duration, .seconds(180))
        try await s.launch()
        try await s.setAllowsCellular(false)
        let wifiOnly = try await s.request("large")
        try await s.setAllowsCellular(true)
        let anyNetwork = try await s.request(ScenarioNetwork.extraLarge)
        let tokens = [wifiOnly, anyNetwork]
        while ContinuousClock.now < window, await !s.allSettled(tokens) {
            try await s.hold(.milliseconds(250))
        }
        for token in tokens {
            if await !s.allSettled([token]) {
                await s.note("download \(token) was not finished when the profile's window closed")
                try await s.user(.cancel, token)
                try await s.wait("the cancelled download to be gone", timeout: .seconds(30)) {
                    $0.states[token] == .notDownloaded
                }
            }
            try await s.inspect(token)
        }
    }
}

extension ScenarioContext {
    /// Whether every one of `tokens` is downloaded or failed (and no package read
    /// that caused is still under way).
    public func allSettled(_ tokens: [String]) -> Bool {
        let live = collector.live
        return tokens.allSatisfy { [.downloaded, .failed].contains(live.states[$0]) } && !packages.isBusy
    }
}

/// A scenario name `bench --scenario` does not know.
public struct UnknownScenario: Error, Sendable, Hashable, CustomStringConvertible {
    public var name: String

    public var description: String {
        "unknown scenario \"\(name)\"; known: \(ScenarioSuite.all.map(\.name).joined(separator: ", ")) (see `bench scenarios`)"
    }
}

extension ScenarioSuite {
    /// The scenarios `names` names, in that order; all of them when `names` is empty.
    public static func chosen(_ names: [String]) throws(UnknownScenario) -> [Scenario] {
        guard !names.isEmpty else { return all }
        return try names.map { name throws(UnknownScenario) in
            guard let scenario = named(name) else { throw UnknownScenario(name: name) }
            return scenario
        }
    }
}
