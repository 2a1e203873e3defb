import BenchCore

/// The JSON of a conditioner event's kind: one flat object, its case named by `type`
/// and its values by their labels, e.g.
/// `{"type":"interfaceDown","interface":"wifi","mode":"reset"}` (docs/report-schema.md).
extension ConditionerEvent.Kind: Codable {
    /// The `type` of each case: the case's name.
    public enum Name: String, Codable, CaseIterable, Sendable {
        case listening, connectionAccepted, connectionRefused, upstreamConnected, upstreamFailed, appSent, bytesForwarded
        case stalled, flowResumed, packetLost, connectionReset, connectionClosed, interfaceUp, interfaceDown
        case linkChanged, listenerFailed, pathChanged, pathPublished, phaseApplied, profileStateHeld
        case profileStateOverridden, timelineFinished, stopped, tunnelOpened, requestForwarded
        case requestIntercepted, timelineControlled
    }

    private enum Key: String, CodingKey {
        case type, interface, endpoint, connection, peer, connectMilliseconds, error, direction, bytes, total
        case pendingBytes, stalledMilliseconds, heldMilliseconds, reason, stats, mode, summary, path, index, label, at
        case state, phase, target, action
    }

    /// The case's `type`.
    public var name: Name {
        switch self {
        case .listening: .listening
        case .connectionAccepted: .connectionAccepted
        case .connectionRefused: .connectionRefused
        case .upstreamConnected: .upstreamConnected
        case .upstreamFailed: .upstreamFailed
        case .tunnelOpened: .tunnelOpened
        case .requestForwarded: .requestForwarded
        case .requestIntercepted: .requestIntercepted
        case .appSent: .appSent
        case .bytesForwarded: .bytesForwarded
        case .stalled: .stalled
        case .flowResumed: .flowResumed
        case .packetLost: .packetLost
        case .connectionReset: .connectionReset
        case .connectionClosed: .connectionClosed
        case .interfaceUp: .interfaceUp
        case .interfaceDown: .interfaceDown
        case .linkChanged: .linkChanged
        case .listenerFailed: .listenerFailed
        case .pathChanged: .pathChanged
        case .pathPublished: .pathPublished
        case .phaseApplied: .phaseApplied
        case .profileStateHeld: .profileStateHeld
        case .profileStateOverridden: .profileStateOverridden
        case .timelineFinished: .timelineFinished
        case .timelineControlled: .timelineControlled
        case .stopped: .stopped
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(name, forKey: .type)
        switch self {
        case let .listening(interface, endpoint):
            try c.encode(interface, forKey: .interface)
            try c.encode(endpoint, forKey: .endpoint)
        case let .connectionAccepted(connection, interface, peer):
            try c.encode(connection, forKey: .connection)
            try c.encode(interface, forKey: .interface)
            try c.encode(peer, forKey: .peer)
        case let .connectionRefused(interface, peer):
            try c.encode(interface, forKey: .interface)
            try c.encode(peer, forKey: .peer)
        case let .upstreamConnected(connection, interface, milliseconds):
            try c.encode(connection, forKey: .connection)
            try c.encode(interface, forKey: .interface)
            try c.encode(milliseconds, forKey: .connectMilliseconds)
        case let .tunnelOpened(connection, interface, target), let .requestForwarded(connection, interface, target),
            let .requestIntercepted(connection, interface, target):
            try c.encode(connection, forKey: .connection)
            try c.encode(interface, forKey: .interface)
            try c.encode(target, forKey: .target)
        case let .upstreamFailed(connection, interface, error):
            try c.encode(connection, forKey: .connection)
            try c.encode(interface, forKey: .interface)
            try c.encode(error, forKey: .error)
        case let .appSent(connection, interface, bytes):
            try c.encode(connection, forKey: .connection)
            try c.encode(interface, forKey: .interface)
            try c.encode(bytes, forKey: .bytes)
        case let .bytesForwarded(connection, interface, direction, bytes, total):
            try c.encode(connection, forKey: .connection)
            try c.encode(interface, forKey: .interface)
            try c.encode(direction, forKey: .direction)
            try c.encode(bytes, forKey: .bytes)
            try c.encode(total, forKey: .total)
        case let .stalled(connection, interface, direction, pending):
            try c.encode(connection, forKey: .connection)
            try c.encode(interface, forKey: .interface)
            try c.encode(direction, forKey: .direction)
            try c.encode(pending, forKey: .pendingBytes)
        case let .flowResumed(connection, interface, direction, milliseconds):
            try c.encode(connection, forKey: .connection)
            try c.encode(interface, forKey: .interface)
            try c.encode(direction, forKey: .direction)
            try c.encode(milliseconds, forKey: .stalledMilliseconds)
        case let .packetLost(connection, interface, direction, bytes, held):
            try c.encode(connection, forKey: .connection)
            try c.encode(interface, forKey: .interface)
            try c.encode(direction, forKey: .direction)
            try c.encode(bytes, forKey: .bytes)
            try c.encode(held, forKey: .heldMilliseconds)
        case let .connectionReset(connection, interface, reason):
            try c.encode(connection, forKey: .connection)
            try c.encode(interface, forKey: .interface)
            try c.encode(reason, forKey: .reason)
        case let .connectionClosed(connection, interface, reason, stats):
            try c.encode(connection, forKey: .connection)
            try c.encode(interface, forKey: .interface)
            try c.encode(reason, forKey: .reason)
            try c.encode(stats, forKey: .stats)
        case let .interfaceUp(interface):
            try c.encode(interface, forKey: .interface)
        case let .interfaceDown(interface, mode):
            try c.encode(interface, forKey: .interface)
            try c.encode(mode, forKey: .mode)
        case let .linkChanged(interface, summary):
            try c.encode(interface, forKey: .interface)
            try c.encode(summary, forKey: .summary)
        case let .listenerFailed(interface, error):
            try c.encode(interface, forKey: .interface)
            try c.encode(error, forKey: .error)
        case let .pathChanged(path), let .pathPublished(path):
            try c.encode(path, forKey: .path)
        case let .phaseApplied(index, label, at):
            try c.encode(index, forKey: .index)
            try c.encodeIfPresent(label, forKey: .label)
            try c.encode(at, forKey: .at)
        case let .profileStateHeld(interface, state, phase):
            try c.encode(interface, forKey: .interface)
            try c.encode(state, forKey: .state)
            try c.encode(phase, forKey: .phase)
        case let .profileStateOverridden(interface, state):
            try c.encode(interface, forKey: .interface)
            try c.encode(state, forKey: .state)
        case let .timelineControlled(action, at):
            try c.encode(action, forKey: .action)
            try c.encode(at, forKey: .at)
        case .timelineFinished, .stopped:
            break
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        func value<T: Decodable>(_ key: Key) throws -> T { try c.decode(T.self, forKey: key) }
        switch try c.decode(Name.self, forKey: .type) {
        case .listening:
            self = .listening(interface: try value(.interface), endpoint: try value(.endpoint))
        case .connectionAccepted:
            self = .connectionAccepted(connection: try value(.connection), interface: try value(.interface), peer: try value(.peer))
        case .connectionRefused:
            self = .connectionRefused(interface: try value(.interface), peer: try value(.peer))
        case .upstreamConnected:
            self = .upstreamConnected(
                connection: try value(.connection), interface: try value(.interface),
                connectMilliseconds: try value(.connectMilliseconds))
        case .upstreamFailed:
            self = .upstreamFailed(connection: try value(.connection), interface: try value(.interface), error: try value(.error))
        case .tunnelOpened:
            self = .tunnelOpened(connection: try value(.connection), interface: try value(.interface), target: try value(.target))
        case .requestForwarded:
            self = .requestForwarded(
                connection: try value(.connection), interface: try value(.interface), target: try value(.target))
        case .requestIntercepted:
            self = .requestIntercepted(
                connection: try value(.connection), interface: try value(.interface), target: try value(.target))
        case .appSent:
            self = .appSent(connection: try value(.connection), interface: try value(.interface), bytes: try value(.bytes))
        case .bytesForwarded:
            self = .bytesForwarded(
                connection: try value(.connection), interface: try value(.interface), direction: try value(.direction),
                bytes: try value(.bytes), total: try value(.total))
        case .stalled:
            self = .stalled(
                connection: try value(.connection), interface: try value(.interface), direction: try value(.direction),
                pendingBytes: try value(.pendingBytes))
        case .flowResumed:
            self = .flowResumed(
                connection: try value(.connection), interface: try value(.interface), direction: try value(.direction),
                stalledMilliseconds: try value(.stalledMilliseconds))
        case .packetLost:
            self = .packetLost(
                connection: try value(.connection), interface: try value(.interface), direction: try value(.direction),
                bytes: try value(.bytes), heldMilliseconds: try value(.heldMilliseconds))
        case .connectionReset:
            self = .connectionReset(connection: try value(.connection), interface: try value(.interface), reason: try value(.reason))
        case .connectionClosed:
            self = .connectionClosed(
                connection: try value(.connection), interface: try value(.interface), reason: try value(.reason),
                stats: try value(.stats))
        case .interfaceUp:
            self = .interfaceUp(interface: try value(.interface))
        case .interfaceDown:
            self = .interfaceDown(interface: try value(.interface), mode: try value(.mode))
        case .linkChanged:
            self = .linkChanged(interface: try value(.interface), summary: try value(.summary))
        case .listenerFailed:
            self = .listenerFailed(interface: try value(.interface), error: try value(.error))
        case .pathChanged:
            self = .pathChanged(path: try value(.path))
        case .pathPublished:
            self = .pathPublished(path: try value(.path))
        case .phaseApplied:
            self = .phaseApplied(index: try value(.index), label: try c.decodeIfPresent(String.self, forKey: .label), at: try value(.at))
        case .profileStateHeld:
            self = .profileStateHeld(interface: try value(.interface), state: try value(.state), phase: try value(.phase))
        case .profileStateOverridden:
            self = .profileStateOverridden(interface: try value(.interface), state: try value(.state))
        case .timelineFinished:
            self = .timelineFinished
        case .timelineControlled:
            self = .timelineControlled(action: try value(.action), at: try value(.at))
        case .stopped:
            self = .stopped
        }
    }
}
