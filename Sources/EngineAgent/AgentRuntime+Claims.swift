import AppProtocol
import Foundation
import OfflineDownloads

/// What the lying variants (`claimsUnstoredSegments`, `claimsDownloadedEarly`) need
/// beyond the engine's events, found by the relay task for `AgentEventRelay`: the
/// download's plan on disk, and the engine's count of stored items.
extension AgentRuntime {
    /// Before relaying a stored segment: tells `relay` the download's plan, once it is on disk.
    func learnPlan(_ relay: inout AgentEventRelay, for event: EngineEvent) {
        guard case .segmentStored(let token, _, _, _, _) = event, relay.needsPlan(token.rawValue),
            let directory = inspector.packageDirectory(of: token.rawValue), let plan = AgentPackage.plan(in: directory)
        else { return }
        relay.learn(token.rawValue, AgentEventRelay.PlanFacts(plan))
    }

    /// After relaying a stored segment: `claimsDownloadedEarly`'s claim, when all but
    /// one item is stored by the engine's count.
    func earlyClaim(_ relay: inout AgentEventRelay, after event: EngineEvent) async -> [AppEvent] {
        guard case .segmentStored(let token, _, _, _, _) = event, relay.mayClaimEarly(token.rawValue),
            let items = relay.plans[token.rawValue]?.items, let status = await engine.status(token),
            let directory = inspector.packageDirectory(of: token.rawValue)
        else { return [] }
        let stored = Int((status.progress * Double(items)).rounded())
        return relay.claimEarly(
            token.rawValue, stored: stored, engineState: AppState(status.state),
            package: directory + "/" + OfflinePackage.masterPlaylistPath)
    }
}
