import AppProtocol
import Foundation
import HLSPlaylist
import OfflineDownloads

/// Where the two lying variants lie, on top of the engine's true events:
/// `claimsUnstoredSegments` adds a `segmentStored` for a segment never fetched beside
/// each real one, and `claimsDownloadedEarly` reports a download downloaded as soon as
/// all but one of its items are stored. Pure: what they need of the plan and of the
/// engine, the driver (`AgentRuntime.relayEvents`) finds and hands in.
extension AgentEventRelay {
    /// What the lying variants need of a download's plan.
    struct PlanFacts: Equatable {
        /// Items of the plan (segments, key files, init sections): what the engine's
        /// progress counts.
        var items: Int
        /// The directory of a variant other than the chosen one (e.g.
        /// `/videos/clear/1200k`), whose segments the download never fetches; nil when
        /// the master has a single variant.
        var decoyDirectory: String?

        /// The facts of `plan`.
        init(items: Int, decoyDirectory: String?) {
            self.items = items
            self.decoyDirectory = decoyDirectory
        }

        init(_ plan: DownloadPlan) {
            let directory = { (uri: String) in resolve(uri, against: plan.masterURL)?.deletingLastPathComponent().path }
            let chosen = directory(plan.selection.variant.uri)
            self.init(
                items: plan.items.count,
                decoyDirectory: plan.master.variants.lazy.compactMap { directory($0.uri) }.first { $0 != chosen })
        }
    }

    /// Whether a lying variant still needs the plan of `download`.
    func needsPlan(_ download: String) -> Bool {
        [.claimsUnstoredSegments, .claimsDownloadedEarly].contains(misbehavior) && plans[download] == nil
    }

    /// `claimsUnstoredSegments`: beside a stored media segment, the claim of the same
    /// segment of the decoy variant, which the engine never fetched.
    func unstoredClaim(beside stored: AppEvent) -> [AppEvent] {
        guard misbehavior == .claimsUnstoredSegments,
            case let .segmentStored(download, stream, index, bytes, path) = stored, stream != DownloadPlan.keyStream,
            let decoy = plans[download]?.decoyDirectory
        else { return [] }
        let url = URL(fileURLWithPath: path)
        guard url.deletingLastPathComponent().path != decoy else { return [] }
        let claimed = decoy + "/" + url.lastPathComponent
        return [.segmentStored(download: download, stream: stream, index: index, bytes: bytes, path: claimed)]
    }

    /// Whether `claimsDownloadedEarly` may still claim `download` (it asks the engine then).
    func mayClaimEarly(_ download: String) -> Bool {
        misbehavior == .claimsDownloadedEarly && !claimedEarly.contains(download)
            && (reportedState(download) ?? .downloading) == .downloading && (plans[download]?.items ?? 0) >= 2
    }

    /// `claimsDownloadedEarly`, after a segment of `download` was stored: with `stored`
    /// of its plan's items stored by the engine's count and the engine still
    /// `downloading`, all but (at most) one stored is enough to report it downloaded
    /// and its package (`package`, the master playlist) finished.
    mutating func claimEarly(_ download: String, stored: Int, engineState: AppState, package: String) -> [AppEvent] {
        guard mayClaimEarly(download), let items = plans[download]?.items, stored >= items - 1,
            engineState == .downloading
        else { return [] }
        return markClaimedEarly(download, package: package)
    }
}
