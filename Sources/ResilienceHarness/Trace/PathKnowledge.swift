import BenchCore

extension ScenarioTrace {
    /// The stretches in which the app knew that no interface was up: from its reply to
    /// a `setPath` with none (`pathAcknowledged([])`, recorded as the reply was read, so
    /// every app event recorded later was written after the app had taken that path in)
    /// until the harness sent it a path with an interface (`pathGiven`, recorded before
    /// the send), killed it, or the trace ended. Causality, not one stamp: an event the
    /// app wrote before it read the path is recorded before its reply, and an event
    /// written after it learnt of an interface is recorded after the harness sent it.
    public var toldOffline: [TraceInterval] {
        var found: [TraceInterval] = []
        var open: (t: UInt64, cause: String)?
        func close(_ t: UInt64, _ cause: String) {
            guard let start = open else { return }
            found.append(TraceInterval(start: start.t, end: t, startCause: start.cause, endCause: cause))
            open = nil
        }
        for entry in entries {
            guard case .harness(let event) = entry.event else { continue }
            switch event {
            case .pathAcknowledged(let interfaces) where interfaces.isEmpty:
                if open == nil { open = (entry.t, "the app acknowledged a path with no interface up") }
            case .pathGiven(let interfaces) where !interfaces.isEmpty:
                close(entry.t, "the harness sent a path with \(interfaces.map(\.rawValue).joined(separator: ", "))")
            case .pathAcknowledged(let interfaces):
                close(entry.t, "the app acknowledged a path with \(interfaces.map(\.rawValue).joined(separator: ", "))")
            case .killed:
                close(entry.t, "the app was killed")
            default:
                continue
            }
        }
        if let start = open {
            found.append(TraceInterval(start: start.t, end: nil, startCause: start.cause, endCause: nil))
        }
        return found
    }
}
