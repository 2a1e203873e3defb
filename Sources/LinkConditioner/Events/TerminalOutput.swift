import BenchCore
import Foundation

/// Prints the events a person watching `bench proxy` cares about, one line each, on
/// stdout with the seconds since the conditioner started. Owns nothing; `bench proxy`
/// puts it among its sinks.
public struct TerminalEventPrinter: EventSink {
    public init() {}

    public func record(_ event: ConditionerEvent) {
        let text: String? = switch event.kind {
        case let .phaseApplied(index, label, _): "phase \(index)\(label.map { " (\($0))" } ?? "") applied"
        case let .profileStateHeld(interface, state, _): "\(interface) \(state) held: the driver holds it down"
        case let .profileStateOverridden(interface, state): "\(interface) up over the profile's \(state)"
        case let .interfaceUp(interface): "\(interface) up"
        case let .interfaceDown(interface, mode): "\(interface) down (\(mode.rawValue))"
        case let .linkChanged(interface, summary): "\(interface) link: \(summary)"
        case let .pathPublished(path): "path published: \(Self.describe(path))"
        case let .connectionReset(connection, interface, reason): "\(interface) \(connection) reset: \(reason)"
        case let .upstreamFailed(connection, interface, error): "\(interface) \(connection) upstream failed: \(error)"
        case let .tunnelOpened(connection, interface, target): "\(interface) \(connection) CONNECT tunnel to \(target)"
        case let .requestForwarded(connection, interface, target): "\(interface) \(connection) request forwarded to \(target)"
        case let .requestIntercepted(connection, interface, target): "\(interface) \(connection) intercepted: \(target)"
        case let .listenerFailed(interface, error): "\(interface) listener failed: \(error)"
        case .timelineFinished: "timeline finished"
        case let .timelineControlled(action, at): "timeline \(action) at \(String(format: "%.1f", at)) s"
        default: nil
        }
        if let text {
            print(String(format: "%8.3fs", Double(event.time) / 1e9) + "  " + text)
            fflush(nil)
        }
    }

    /// "satisfied via wifi, cellular (expensive)", or "unsatisfied".
    public static func describe(_ path: NetworkPath) -> String {
        guard path.status == .satisfied else { return "unsatisfied" }
        let names = path.interfaces.map { i in
            i.kind.rawValue + (i.isExpensive ? " (expensive)" : "") + (i.isConstrained ? " (constrained)" : "")
        }
        return "satisfied via " + names.joined(separator: ", ")
    }
}

/// The per-interface counters table printed when `bench proxy` stops.
public enum CountersTable {
    /// One header line, then one line per interface of `snapshot`.
    public static func render(_ snapshot: ConditionerSnapshot) -> String {
        var lines = ["interface  state             accepted  reset  closed  down bytes    up bytes      lost(down/up)"]
        for interface in snapshot.interfaces {
            let c = interface.counters
            lines.append(
                interface.kind.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)
                + interface.state.description.padding(toLength: 18, withPad: " ", startingAt: 0)
                + String(c.connectionsAccepted).padding(toLength: 10, withPad: " ", startingAt: 0)
                + String(c.connectionsReset).padding(toLength: 7, withPad: " ", startingAt: 0)
                + String(c.connectionsClosed).padding(toLength: 8, withPad: " ", startingAt: 0)
                + Units.format(bytes: c.bytesDownlink).padding(toLength: 14, withPad: " ", startingAt: 0)
                + Units.format(bytes: c.bytesUplink).padding(toLength: 14, withPad: " ", startingAt: 0)
                + "\(c.packetsLostDownlink)/\(c.packetsLostUplink)"
            )
        }
        return lines.joined(separator: "\n")
    }
}
