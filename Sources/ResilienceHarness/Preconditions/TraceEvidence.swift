import AppProtocol
import BenchCore
import LinkConditioner

/// Questions preconditions ask of the evidence in a trace (never of the app's claims).
extension ScenarioTrace {
    /// The transfers reaching the app around `t`: connections through which the
    /// conditioner delivered response bytes to the app (`bytesForwarded` downlink, within
    /// `window` before `t` up to its next report after `t`), each with the origin request
    /// it carried then (the connection's latest request begun before `t`, matched by the
    /// client address the PROXY header names). The origin's own log cannot say this: it
    /// hands a response to the conditioner in a millisecond and the conditioner feeds it
    /// to the app at the link's rate for seconds after.
    public func transfersInFlight(
        at t: UInt64, through interface: InterfaceKind? = nil, window: UInt64 = 500_000_000
    ) -> [InFlightTransfer] {
        let reportWindow: UInt64 = 300_000_000  // the conditioner reports every 250 ms
        let flowing = linkBytes.filter { bytes in
            bytes.direction == .downlink && bytes.bytes > 0 && bytes.t.plus(window) >= t && bytes.t <= t.plus(reportWindow)
                && (interface.map { bytes.interface == $0 } ?? true)
        }
        var seen = Set<ConnectionID>()
        return flowing.compactMap { bytes in
            guard seen.insert(bytes.connection).inserted else { return nil }
            let request = request(carriedBy: bytes.connection, at: t)
            return InFlightTransfer(connection: bytes.connection, interface: bytes.interface, request: request)
        }
    }

    /// The origin request connection `connection` carried at `t`: its latest request
    /// begun by then, matched by the client address the PROXY header names.
    public func request(carriedBy connection: ConnectionID, at t: UInt64) -> TracedOriginRequest? {
        guard let peer = connectionAttempts.last(where: { $0.connection == connection })?.peer else { return nil }
        return originRequests.last { $0.record.proxySource == peer && $0.start <= t }
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

/// A connection delivering response bytes to the app at some instant, and the origin
/// request it carried then (nil when it cannot be told).
public struct InFlightTransfer: Sendable, Hashable {
    public var connection: ConnectionID
    public var interface: InterfaceKind
    public var request: TracedOriginRequest?
}
