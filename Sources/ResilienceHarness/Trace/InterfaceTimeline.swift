import BenchCore

/// Which interfaces of the conditioner were up, over the trace's time.
///
/// Built from the link events: `.harness(.interfaceSet)` and the conditioner's own
/// `interfaceUp`/`interfaceDown` (the same fact seen from both sides; applying both is
/// harmless). `.harness(.pathGiven)` events count only before the first link event
/// (the path the scenario starts with) or when the trace has no link event at all: a
/// path given to the app may lag the link or, in a blackhole, hide it, and outages are
/// about the link. Before any event every interface is taken as up.
public struct InterfaceTimeline: Sendable, Hashable {
    /// From `t` on, the interfaces in `up` are up; `cause` says why, for evidence.
    public struct Step: Sendable, Hashable {
        public var t: UInt64
        public var up: Set<InterfaceKind>
        public var cause: String
    }

    /// One link or path event, as `ScenarioTrace` collects them.
    enum Event: Sendable, Hashable {
        case link(t: UInt64, interface: InterfaceKind, up: Bool, mode: DownMode?)
        case path(t: UInt64, interfaces: [InterfaceKind])
    }

    /// The steps in time order; the first, at 0, is "every interface up".
    public let steps: [Step]

    /// A timeline from the link and path events, in trace order.
    init(events: [Event]) {
        let hasLink = events.contains { if case .link = $0 { true } else { false } }
        var seenLink = false
        var up = Set(InterfaceKind.allCases)
        var steps = [Step(t: 0, up: up, cause: "every interface up at the start")]
        for event in events {
            switch event {
            case let .link(t, interface, isUp, mode):
                seenLink = true
                if isUp { up.insert(interface) } else { up.remove(interface) }
                let how = isUp ? "up" : "down (\(mode?.rawValue ?? "unspecified"))"
                steps.append(Step(t: t, up: up, cause: "\(interface) \(how)"))
            case let .path(t, interfaces):
                guard !hasLink || !seenLink else { continue }
                up = Set(interfaces)
                let names = interfaces.map(\.rawValue).joined(separator: ", ")
                steps.append(Step(t: t, up: up, cause: "path given: [\(names)]"))
            }
        }
        self.steps = steps
    }

    /// The interfaces up at `t` (after every event at or before `t`).
    public func up(at t: UInt64) -> Set<InterfaceKind> {
        steps.last { $0.t <= t }?.up ?? Set(InterfaceKind.allCases)
    }

    /// The maximal spans during which `predicate` holds of the set of interfaces up.
    public func intervals(where predicate: (Set<InterfaceKind>) -> Bool) -> [TraceInterval] {
        var result: [TraceInterval] = []
        var open: TraceInterval?
        for step in steps {
            let holds = predicate(step.up)
            if holds, open == nil {
                open = TraceInterval(start: step.t, end: nil, startCause: step.cause, endCause: nil)
            } else if !holds, var span = open {
                span.end = step.t
                span.endCause = step.cause
                if step.t > span.start { result.append(span) }
                open = nil
            }
        }
        if let open { result.append(open) }
        return result
    }

    /// The spans during which none of `allowed` is up: the outages of a download
    /// that may use only `allowed`.
    public func outages(allowed: Set<InterfaceKind>) -> [TraceInterval] {
        intervals { $0.isDisjoint(with: allowed) }
    }

    /// The spans during which cellular is up and WiFi is not.
    public var cellularOnly: [TraceInterval] {
        intervals { $0 == [.cellular] }
    }

    /// The spans during which no interface is up.
    public var offline: [TraceInterval] {
        intervals { $0.isEmpty }
    }
}
