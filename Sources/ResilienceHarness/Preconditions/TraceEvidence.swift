import AppProtocol
import BenchCore

/// Questions preconditions ask of the evidence in a trace (never of the app's claims).
extension ScenarioTrace {
    /// The app's requests (through the conditioner) that the origin was answering at `t`
    /// with a body: started at or before `t` and ended at or after it. A request cut by
    /// an outage or a kill is logged when its connection closed, so it counts.
    public func requestsInFlight(at t: UInt64, through interface: InterfaceKind? = nil) -> [TracedOriginRequest] {
        originRequests.filter { request in
            request.start <= t && request.t >= t && request.record.interface != nil && request.record.bytesSent > 0
                && (interface.map { request.record.interface == $0.rawValue } ?? true)
        }
    }

    /// Every time an interface went down at the conditioner, with the mode (the
    /// harness's `setInterface` and the profile's timeline both end there).
    public var interfacesTakenDown: [(t: UInt64, interface: InterfaceKind, mode: DownMode)] {
        entries.compactMap { entry in
            if case .conditioner(.interfaceDown(let kind, let mode)) = entry.event { return (entry.t, kind, mode) }
            return nil
        }
    }

    /// When the app said `download` ended (downloaded, failed, cancelled, gone), or the
    /// harness cancelled or deleted it; nil while neither happened.
    public func end(of download: TracedDownload) -> UInt64? {
        let terminal: Set<AppState> = [.downloaded, .failed, .canceling, .notDownloaded]
        let claimed = download.changes.first { $0.t >= download.requestedAt && terminal.contains($0.to) }?.t
        let removed = userActions.first {
            $0.download == download.token && ["cancel", "delete"].contains($0.action) && $0.error == nil
        }?.t
        return [claimed, removed].compactMap { $0 }.min()
    }

    /// Whether `download` was requested and not yet ended at `t`.
    public func isIncomplete(_ download: TracedDownload, at t: UInt64) -> Bool {
        download.requestedAt <= t && (end(of: download).map { t < $0 } ?? true)
    }
}
