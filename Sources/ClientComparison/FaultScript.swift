import BenchCore

/// What a fault mode does during a run, as a pure state machine: fed the time and the
/// bytes the client has received, it says when to take an interface down, bring it
/// back, or kill the client. `ClientRunDriver` performs the actions.
public struct FaultScript: Sendable, Equatable {
    /// The one step a mode plays.
    public enum Step: Sendable, Equatable {
        /// `interface` goes down in `mode` once `at` of the content has arrived, for `seconds`.
        case outage(at: Double, mode: DownMode, interface: InterfaceKind, seconds: Double)
        /// The client is killed once `at` of the content has arrived, and run again.
        case kill(at: Double)
    }

    /// What the driver must do now.
    public enum Action: Sendable, Equatable {
        case takeDown(InterfaceKind, DownMode)
        case bringUp(InterfaceKind)
        case killAndRerun
    }

    private enum State: Equatable {
        case waiting
        case down(until: UInt64)
        case done
    }

    public let step: Step?
    private var state: State

    /// A script of one step (nil: nothing happens).
    public init(_ step: Step?) {
        self.step = step
        state = step == nil ? .done : .waiting
    }

    /// Whether nothing is left to do.
    public var isDone: Bool { state == .done }

    /// Whether an outage is under way.
    public var isInOutage: Bool {
        if case .down = state { return true }
        return false
    }

    /// Advances the script: `now` in nanoseconds on any monotonic axis, `received` the
    /// bytes the client has received so far, `content` the bytes of one whole copy.
    public mutating func advance(now: UInt64, received: Int, content: Int) -> [Action] {
        guard let step else { return [] }
        let fraction = content > 0 ? Double(received) / Double(content) : 0
        switch (state, step) {
        case let (.waiting, .outage(at, mode, interface, seconds)) where fraction >= at:
            state = .down(until: now &+ UInt64(max(0, seconds) * 1e9))
            return [.takeDown(interface, mode)]
        case let (.down(until), .outage(_, _, interface, _)) where now >= until:
            state = .done
            return [.bringUp(interface)]
        case let (.waiting, .kill(at)) where fraction >= at:
            state = .done
            return [.killAndRerun]
        default:
            return []
        }
    }

    /// Ends the script early (the client exited): an outage under way is ended.
    public mutating func finish() -> [Action] {
        defer { state = .done }
        if case .down = state, case let .outage(_, _, interface, _)? = step { return [.bringUp(interface)] }
        return []
    }
}
