import AppProtocol
import BenchCore

/// What held at a moment of a scenario (`SituationContext`), from the evidence: the
/// interfaces the conditioner had up, the harness's lifecycle, and each requested
/// download's phase as the origin's log, the harness's actions and its package reads
/// show it (docs/situations.md).
struct ContextView {
    let trace: ScenarioTrace
    let renditions: OriginRenditions

    /// Every context that held at `t` (events at `t` included; `UInt64.max`, from 0 − 1,
    /// reads as the start). With `download`, only that download's phase and cellular
    /// setting count (an incident that concerns one download); else every requested one's.
    func context(at t: UInt64, of download: String? = nil) -> Set<SituationContext> {
        let t = t == .max ? 0 : t
        var context: Set<SituationContext> = []
        let up = trace.interfaces.up(at: t)
        context.insert(up.count == 2 ? .bothUp : up == [.wifi] ? .wifiOnly : up == [.cellular] ? .cellularOnly : .offline)
        if trace.isInBackground(at: t) { context.insert(.inBackground) }
        let requested = trace.downloads.filter { $0.requestedAt <= t && (download == nil || $0.token == download) }
        var unsettled = 0
        for download in requested {
            let phase = phase(of: download, at: t, up: up)
            context.insert(phase)
            guard phase != .settled else { continue }
            unsettled += 1
            context.insert(download.allowsCellular ? .mayUseCellular : .mayNotUseCellular)
        }
        if !requested.isEmpty, unsettled > 0 { context.remove(.settled) }
        return context
    }

    /// The phase of `download` at `t`.
    func phase(of download: TracedDownload, at t: UInt64, up: Set<InterfaceKind>) -> SituationContext {
        if isSettled(download, at: t) { return .settled }
        if let last = trace.userActions.last(where: {
            $0.download == download.token && $0.t <= t && $0.error == nil && ["pause", "resume"].contains($0.action)
        }), last.action == "pause" {
            return .paused
        }
        if up.isDisjoint(with: download.allowedInterfaces) { return .suspendedForNetwork }
        let requests = trace.originRequests(forVideo: download.video).filter { $0.start >= download.requestedAt && $0.start <= t }
        // The latest segment request by when it began (the log is in the order responses ended).
        let segments = requests.filter { OriginPath.isMediaSegment($0.path) }
        if let current = segments.max(by: { $0.start < $1.start }) {
            return isLast(current.path) ? .lastSegment : .midSegment
        }
        if download.isProtected, let key = download.licenseKey {
            let path = OriginPath.normalized(key.licenseURL)
            let delivered = trace.originRequests.contains { $0.path == path && $0.start >= download.requestedAt && $0.t <= t
                && $0.record.completed && $0.record.status == 200 }
            // The exchange: the license path, or one under it (its certificate, `/license/certificate`).
            let asked = trace.originRequests.contains {
                ($0.path == path || $0.path.hasPrefix(path + "/")) && $0.start >= download.requestedAt && $0.start <= t
            }
            if asked && !delivered { return .license }
        }
        if requests.contains(where: { $0.path.hasSuffix(".m3u8") }) { return .playlists }
        return .requested
    }

    /// Whether `download` had settled by `t`: the user cancelled or deleted it, the harness
    /// read a package of it with no package-level problem, or the app reported it
    /// downloaded or failed.
    private func isSettled(_ download: TracedDownload, at t: UInt64) -> Bool {
        if trace.userActions.contains(where: {
            $0.download == download.token && $0.t <= t && $0.error == nil && ["cancel", "delete"].contains($0.action)
        }) {
            return true
        }
        if trace.packageReads(of: download.token).contains(where: { $0.t <= t && $0.cause == .downloaded && $0.found.problems.isEmpty }) {
            return true
        }
        return [.downloaded, .failed].contains(download.state(atOrBefore: t))
    }

    /// Whether `path` is one of the last segments of its rendition's playlist: the last
    /// one, or within its final fifth.
    private func isLast(_ path: String) -> Bool {
        guard let rendition = renditions.rendition(ofSegment: path), let segments = renditions.segments[rendition],
            let index = segments.firstIndex(of: OriginPath.normalized(path))
        else { return false }
        return index >= segments.count - max(1, segments.count / 5)
    }
}
