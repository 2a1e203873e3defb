import BenchCore

extension ScenarioTrace {
    /// The stretches in which the app knew that no interface was up: `told(noneOf:)` of
    /// every interface.
    public var toldOffline: [TraceInterval] {
        told(noneOf: Set(InterfaceKind.allCases))
    }

    /// The stretches in which the app knew that none of `interfaces` was up (a download's
    /// allowed interfaces: WiFi alone for one not allowed cellular): from its reply to a
    /// `setPath` with none of them (`pathAcknowledged`, recorded as the reply was read, so
    /// every app event recorded later was written after the app had taken that path in)
    /// until the harness sent it a path with one of them (`pathGiven`, recorded before the
    /// send), killed it, or the trace ended. Causality, not one stamp: an event the app
    /// wrote before it read the path is recorded before its reply, and an event written
    /// after it learnt of such an interface is recorded after the harness sent it.
    public func told(noneOf interfaces: Set<InterfaceKind>) -> [TraceInterval] {
        var found: [TraceInterval] = []
        var open: (t: UInt64, cause: String)?
        func close(_ t: UInt64, _ cause: String) {
            guard let start = open else { return }
            found.append(TraceInterval(start: start.t, end: t, startCause: start.cause, endCause: cause))
            open = nil
        }
        func names(_ path: [InterfaceKind]) -> String {
            path.isEmpty ? "no interface" : path.map(\.rawValue).joined(separator: ", ")
        }
        for entry in entries {
            guard case .harness(let event) = entry.event else { continue }
            switch event {
            case .pathAcknowledged(let path) where interfaces.isDisjoint(with: path):
                if open == nil {
                    open = (entry.t, path.isEmpty ? "the app acknowledged a path with no interface up"
                        : "the app acknowledged a path with only \(names(path)) up")
                }
            case .pathGiven(let path) where !interfaces.isDisjoint(with: path):
                close(entry.t, "the harness sent a path with \(names(path))")
            case .pathAcknowledged(let path):
                close(entry.t, "the app acknowledged a path with \(names(path))")
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
