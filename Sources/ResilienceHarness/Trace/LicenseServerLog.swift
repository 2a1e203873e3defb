import BenchCore
import FixtureOrigin

/// A license the license server issued (`license_issued`): a content key for `assetID`.
public struct TracedLicenseIssue: Sendable, Hashable {
    /// When the server issued it: as soon as the request arrived, before any delay the
    /// origin adds to the response.
    public var t: UInt64
    /// When its request reached the server (the `request_received` it answers), nil
    /// when the log has none before it.
    public var requestedAt: UInt64?
    public var assetID: String
    public var keyID: String
    /// When the HTTP response that carried it ended, from the origin's log: the
    /// completed 200 on a license path whose span (start to end) holds `t`. Nil when the
    /// origin logged no such response: the license never reached the app.
    public var deliveredAt: UInt64?
    /// When that response began: its head was written (the request's start plus its time
    /// to first byte). The app may read and use the license before the origin stamps the
    /// response's end (the end is stamped when the write completes, on the origin's
    /// thread, while the app reads on another core). Nil with `deliveredAt`.
    public var respondedAt: UInt64? = nil
    /// A rental's expiry the server signed (Unix seconds); nil for a purchase.
    public var expiresAt: Int64? = nil
}

/// A request the license server refused (`license_refused`), or that the origin's HTTP
/// layer answered itself (`request_rejected`: wrong method, a status fault rule…).
public struct TracedLicenseRefusal: Sendable, Hashable {
    /// When it was refused.
    public var t: UInt64
    /// When its request reached the server, nil when the log has none before it.
    public var requestedAt: UInt64?
    public var endpoint: LicenseEndpoint
    /// The asset of its request, nil when the body named none (or was never read).
    public var assetID: String?
    /// The server's code (`app_in_background`, `unknown_asset`…) or `HTTP <status>: <reason>`.
    public var reason: String
}

/// The license server's own log, from the `.license` entries of a trace, with when
/// each license reached the app (from the origin's log). Derived once by
/// `ScenarioTrace`; read by `license-before-background`.
public struct LicenseServerLog: Sendable {
    /// Every `request_received`, every endpoint, in time order.
    public var requests: [TracedLicenseRequest] = []
    /// Every license issued, in time order.
    public var issued: [TracedLicenseIssue] = []
    /// Every refusal, in time order.
    public var refused: [TracedLicenseRefusal] = []

    /// The requests whose body named `asset`.
    public func requests(forAsset asset: String) -> [TracedLicenseRequest] {
        requests.filter { $0.assetID == asset }
    }

    /// The licenses issued for `asset`.
    public func issued(forAsset asset: String) -> [TracedLicenseIssue] {
        issued.filter { $0.assetID == asset }
    }

    /// The refusals of requests for `asset`.
    public func refused(forAsset asset: String) -> [TracedLicenseRefusal] {
        refused.filter { $0.assetID == asset }
    }

    /// The first license for `asset` whose response ended strictly before `t`: one the
    /// app could hold at `t`. Nil when none had reached it.
    public func delivered(forAsset asset: String, before t: UInt64) -> TracedLicenseIssue? {
        issued.filter { $0.assetID == asset && ($0.deliveredAt.map { $0 < t } ?? false) }
            .min { ($0.deliveredAt ?? .max) < ($1.deliveredAt ?? .max) }
    }

    /// The first license for `asset` whose response had begun strictly before `t` and
    /// went on to complete: one the app could have read by `t`. Every rule that asks
    /// whether the app held a license at an instant it caused (its claim, its next
    /// request, its reply before the background) uses this, not `delivered`: the origin
    /// stamps a response's end when its write completes, and a fast app has read, used
    /// and acted on the license by then. Nil when none had.
    public func begun(forAsset asset: String, before t: UInt64) -> TracedLicenseIssue? {
        issued.filter { $0.assetID == asset && $0.deliveredAt != nil && ($0.respondedAt.map { $0 < t } ?? false) }
            .min { ($0.respondedAt ?? .max) < ($1.respondedAt ?? .max) }
    }

    /// Collects the license events of a time-ordered trace (`ScenarioTraceBuilder`).
    struct Builder {
        var log = LicenseServerLog()
        /// The last `request_received` not yet answered: the server records a request
        /// and its answer together, so an answer follows its request.
        private var pending: TracedLicenseRequest?

        mutating func add(_ event: LicenseEvent, at t: UInt64) {
            switch event.kind {
            case let .requestReceived(endpoint, assetID, _, _, _, background):
                let request = TracedLicenseRequest(t: t, endpoint: endpoint, assetID: assetID, appInBackground: background)
                log.requests.append(request)
                pending = request
            case let .licenseIssued(assetID, keyID, _, _, expiresAt, _):
                log.issued.append(TracedLicenseIssue(
                    t: t, requestedAt: pending?.t, assetID: assetID, keyID: keyID, deliveredAt: nil, expiresAt: expiresAt))
                pending = nil
            case let .licenseRefused(endpoint, code):
                log.refused.append(TracedLicenseRefusal(
                    t: t, requestedAt: pending?.t, endpoint: endpoint, assetID: pending?.assetID, reason: code.rawValue))
                pending = nil
            case let .requestRejected(endpoint, _, _, status, reason):
                log.refused.append(TracedLicenseRefusal(
                    t: t, requestedAt: pending?.t, endpoint: endpoint, assetID: pending?.assetID,
                    reason: "HTTP \(status): \(reason)"))
                pending = nil
            case .certificateServed, .licenseRenewed:
                pending = nil
            }
        }

        /// The log, each issued license paired with the origin response that carried
        /// it: in issue order, the earliest-ending unused completed 200 on one of
        /// `licensePaths` (normalized origin paths) whose span holds the issue time; and
        /// each request with when the app had sent it (`TracedLicenseRequest.sentAt`).
        func finish(originRequests: [TracedOriginRequest], licensePaths: Set<String>) -> LicenseServerLog {
            var result = log
            var responses = originRequests.filter {
                licensePaths.contains($0.path) && $0.record.status == 200 && $0.record.completed
            }
            for index in result.issued.indices {
                let issue = result.issued[index]
                let carrying = responses.indices.filter { responses[$0].start <= issue.t && issue.t <= responses[$0].t }
                guard let best = carrying.min(by: { responses[$0].t < responses[$1].t }) else { continue }
                let response = responses[best]
                result.issued[index].deliveredAt = response.t
                result.issued[index].respondedAt = response.record.timeToFirstByteNanoseconds
                    .map { min(response.t, response.start &+ $0) } ?? response.t
                responses.remove(at: best)
            }
            let unrelated = originRequests.filter { $0.video == nil }
            for index in result.requests.indices {
                let t = result.requests[index].t
                let under = unrelated.filter { $0.start <= t && t <= $0.t }
                guard !under.isEmpty, under.allSatisfy({ $0.sentAt != nil }) else { continue }
                result.requests[index].sentAt = under.compactMap(\.sentAt).max()
            }
            return result
        }
    }
}
