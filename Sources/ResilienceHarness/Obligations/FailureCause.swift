import AppProtocol
import BenchCore
import Foundation

/// A permanent cause the world showed for a download to end `failed`
/// (docs/obligations.md, "Justified failures"). Nothing else justifies a failure: a reset,
/// a refused connection, a cut body, a stall, a captive portal's page or a single server
/// error is a passing fault, retried.
public enum FailureCause: Sendable, Hashable {
    /// The launch after a force-quit or a reboot while suspended, with the download in
    /// flight at the kill: the guides' table requires the failure (`crash-recovery`
    /// judges its timing).
    case lostAtRelaunch(TracedLaunch)
    /// The origin answered a client error (4xx but 408 and 429, which ask to try again)
    /// to a request for one of its resources (a playlist, a segment, a key, its license).
    case clientError(TracedOriginRequest)
    /// The license server refused a request for its asset (`license_refused`, or its HTTP
    /// layer rejected one), and that answer could reach the app.
    case licenseRefused(TracedLicenseRefusal)
    /// Every license the server issued for its asset was a rental that had expired.
    case licenseExpired(Date)
    /// `FailureRules.serverErrorRounds` rounds of server errors (5xx) for its resources in
    /// a row, each retried after the previous one's answer, spread over at least
    /// `FailureRules.minimumSpread`, with no content served between them.
    case serverErrors([TracedOriginRequest])
    /// Its catalog entry says it may not be downloaded (`offline_enabled: false`).
    case notOfflineEnabled

    /// In words, for evidence.
    public var words: String {
        switch self {
        case .lostAtRelaunch(let launch):
            "the launch after \(launch.after) at \(Wording.time(launch.t)) must fail the downloads in flight"
        case .clientError(let request):
            "the origin answered \(request.record.status) to \(request.record.method) \(request.path) at "
                + Wording.time(request.responseBegan)
        case .licenseRefused(let refusal):
            "the license server refused a \(refusal.endpoint.rawValue) request (\(refusal.reason)) at "
                + Wording.time(refusal.t)
        case .licenseExpired(let date):
            "its license expired at \(date) (the expiry the license server signed)"
        case .serverErrors(let requests):
            "\(requests.count) rounds of server errors in a row" + (requests.last.map { last in
                ", the last \(last.record.status) to \(last.record.method) \(last.path) at \(Wording.time(last.responseBegan))"
            } ?? "")
        case .notOfflineEnabled:
            "its catalog entry is not offline-enabled"
        }
    }
}

/// The documented rule for failures, in numbers (docs/app-protocol.md, "Failures").
public enum FailureRules {
    /// How many rounds of server errors in a row justify a failure: Media3's
    /// `DownloadManager` default `minRetryCount`.
    public static let serverErrorRounds = 5
    /// The least time from the first round's answer to the last round's start: the first
    /// delays of a backoff (from 0.5 s, full jitter: four retries take less than this about
    /// once in 1,500 give-ups), where an app that retries at once makes its rounds in
    /// milliseconds.
    public static let minimumSpread: UInt64 = 500_000_000
}

/// One `→ failed` of a download, judged once for every property: its cause, if the world
/// showed one, and the property whose situation it failed in, which alone reports it.
public struct FailureJudgement: Sendable, Hashable {
    public var download: TracedDownload
    public var change: TracedStateChange
    /// The permanent cause; nil when the world showed none (an unjustified failure).
    public var cause: FailureCause?
    /// The property that judges it: `crash-recovery` for a failure the launch after a
    /// force-quit or a reboot requires; for one with no cause, `auto-suspend-on-disconnect`
    /// during an outage of the download that concerned it (it was downloading or suspended
    /// for the network when it began) or within the resume bound after its end,
    /// `license-before-background`
    /// after the app said its license failed (and none reached it since), else
    /// `justified-failure`; a justified one otherwise, `justified-failure`.
    public var judgedBy: String

    public var isJustified: Bool { cause != nil }
}

extension ScenarioTrace {
    /// Every `→ failed` of every download the harness requested, judged (`FailureJudgement`),
    /// in time order. `context` gives the run's wall clock (expired rentals) and the
    /// videos whose catalog entry is not offline-enabled.
    public func failures(_ context: PropertyContext) -> [FailureJudgement] {
        let involved = Dictionary(grouping: outageResponses.filter(\.isInvolved), by: \.download.token)
        let after = context.resumeBound.nanoseconds
        return downloads.flatMap { download in
            download.changes.filter { $0.to == .failed && $0.t >= download.requestedAt }.map { change in
                let cause = failureCause(of: download, change, context)
                let inOutage = (involved[download.token] ?? []).contains { response in
                    change.t >= response.outage.start && change.t <= (response.outage.end ?? .max).plus(after)
                }
                let judgedBy: String
                if case .lostAtRelaunch = cause {
                    judgedBy = "crash-recovery"
                } else if cause == nil, inOutage {
                    judgedBy = "auto-suspend-on-disconnect"
                } else if cause == nil, gaveUpOnLicense(download, change) != nil {
                    judgedBy = "license-before-background"
                } else {
                    judgedBy = "justified-failure"
                }
                return FailureJudgement(download: download, change: change, cause: cause, judgedBy: judgedBy)
            }
        }.sorted { $0.change.t < $1.change.t }
    }

    /// The app's `licenseFailed` for `download` before `failure`, when no license for its
    /// asset reached the app between the two: the failure follows the app giving up.
    func gaveUpOnLicense(_ download: TracedDownload, _ failure: TracedStateChange) -> TracedDownloadNote? {
        guard let note = licenseFailures.last(where: { $0.download == download.token && $0.t <= failure.t }) else {
            return nil
        }
        guard let asset = download.licenseKey?.assetID else { return note }
        let arrived = licenseServer.issued(forAsset: asset).contains {
            guard let delivered = $0.deliveredAt else { return false }
            return delivered > note.t && delivered <= failure.t
        }
        return arrived ? nil : note
    }

    /// The permanent cause the world showed for `download` to fail at `failure`, nil if none.
    func failureCause(of download: TracedDownload, _ failure: TracedStateChange, _ context: PropertyContext)
        -> FailureCause?
    {
        if let launch = launchRequiringFailure(of: download, failure) { return .lostAtRelaunch(launch) }
        if context.offlineDisabled.contains(download.video) { return .notOfflineEnabled }
        let answered = resourceRequests(of: download).filter { $0.responseBegan <= failure.t }
        if let error = answered.first(where: { Self.isPermanentClientError($0.record.status) }) {
            return .clientError(error)
        }
        if let asset = download.licenseKey?.assetID,
            let refusal = licenseServer.refused(forAsset: asset).first(where: {
                $0.t >= download.requestedAt && $0.t <= failure.t
            })
        {
            return .licenseRefused(refusal)
        }
        if let expiry = expiredLicense(of: download, at: failure.t, context) { return .licenseExpired(expiry) }
        let rounds = serverErrorRounds(in: answered)
        if rounds.count >= FailureRules.serverErrorRounds { return .serverErrors(rounds) }
        return nil
    }

    /// The launch after a force-quit or a reboot whose first change to `download` since
    /// the kill before it was `failure` (the relaunched app may report it before the
    /// harness has its answer to hello), with the download in flight at that kill.
    func launchRequiringFailure(of download: TracedDownload, _ failure: TracedStateChange) -> TracedLaunch? {
        for restart in restarts {
            guard let launch = restart.launch, launch.after.failsDownloadsInFlight, restart.kill.t <= failure.t,
                let state = download.state(before: restart.kill.t), state.isInFlight
            else { continue }
            if download.firstChange(from: restart.kill.t, where: { _ in true }) == failure { return launch }
        }
        return nil
    }

    /// The origin requests for `download`'s resources since its request: its video's
    /// paths, and its license URL when it is protected.
    func resourceRequests(of download: TracedDownload) -> [TracedOriginRequest] {
        let license = download.licenseKey.map { OriginPath.normalized($0.licenseURL) }
        return originRequests.filter { request in
            request.start >= download.requestedAt && (request.video == download.video || request.path == license)
        }.sorted { $0.start < $1.start }
    }

    /// A 4xx that says "do not ask again": every one but 408 (Request Timeout) and 429
    /// (Too Many Requests).
    static func isPermanentClientError(_ status: Int) -> Bool {
        (400...499).contains(status) && status != 408 && status != 429
    }

    /// The rounds of server errors at the end of `requests` (in start order), each a 5xx
    /// begun after the previous round's answer (the requests of one attempt, begun before
    /// it, are one round), with no response that carried content (a completed 2xx) since
    /// the first. Too close together (`FailureRules.minimumSpread`), they count as one.
    func serverErrorRounds(in requests: [TracedOriginRequest]) -> [TracedOriginRequest] {
        var rounds: [TracedOriginRequest] = []
        for request in requests {
            let status = request.record.status
            if (200...299).contains(status), request.record.completed, request.record.bytesSent > 0 {
                rounds.removeAll()
            } else if (500...599).contains(status) {
                if let last = rounds.last, request.start < last.responseBegan { continue }
                rounds.append(request)
            }
        }
        guard let first = rounds.first, let last = rounds.last, last.start >= first.responseBegan.plus(FailureRules.minimumSpread)
        else { return Array(rounds.prefix(1)) }
        return rounds
    }

    /// When every license the server issued for `download`'s asset before `t` was a rental
    /// that had expired by `t` (on the run's wall clock): that expiry.
    func expiredLicense(of download: TracedDownload, at t: UInt64, _ context: PropertyContext) -> Date? {
        guard let epoch = context.epochWallClock, let asset = download.licenseKey?.assetID else { return nil }
        let issued = licenseServer.issued(forAsset: asset).filter { $0.t <= t }
        let expiries = issued.compactMap(\.expiresAt)
        guard !issued.isEmpty, expiries.count == issued.count, let latest = expiries.max() else { return nil }
        let expiry = Date(timeIntervalSince1970: TimeInterval(latest))
        let now = epoch.addingTimeInterval(Double(t) / 1e9)
        return expiry < now ? expiry : nil
    }
}
