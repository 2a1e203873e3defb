import BenchCore

/// Decides each interface's up/down state when two voices change it: the profile's
/// timeline (its phases) and the driver's steps (`LinkConditioner.setState`: a
/// scenario's own network steps in the harness). The rule, per interface:
///
/// 1. **Start.** An interface the driver holds from the start (`holds`) is down in
///    the mode it gives; every other one starts as the profile's initial setup says.
/// 2. **The profile's link changes always apply** (rate, delay, loss, faults, flags),
///    whatever the state.
/// 3. **A step that takes an interface down wins**: the interface goes down in the
///    step's mode at once, and the driver *holds* it down. While held, the profile's
///    changes to its state are not applied: each one is remembered as the state the
///    profile has reached for it, and reported (`Action.held`).
/// 4. **A step that brings an interface up lifts the hold and wins too**: the
///    interface is up from then on, even when the profile has it down at that instant
///    (reported, `Action.overridden`), until the profile's next change of its state,
///    which applies as usual.
///
/// So the latest word on an interface's state wins, except that a down step of the
/// driver lasts until the driver itself brings the interface up. A profile that says
/// nothing of an interface leaves it up and unshaped (`Profile.init`): a step that
/// brings it up gets that link.
///
/// A pure value type owned by the conditioner (loop thread): the driver feeds it the
/// profile's phases as `TimelinePlayer` makes them due and the driver's steps as they
/// come, and performs the actions it returns, in order.
struct ProfileOverlay: Sendable, Equatable {
    /// One interface under the rule.
    struct Lane: Sendable, Equatable {
        /// The state the profile's timeline has reached for the interface.
        var profile: InterfaceState
        /// The mode the driver holds the interface down in; nil while it holds nothing.
        var hold: DownMode?
        /// The state the interface is in: what the conditioner applies.
        var state: InterfaceState
    }

    /// What the conditioner must do, or report, after an event.
    enum Action: Sendable, Equatable {
        /// Give the interface this link (the profile's; it may equal the current one).
        case setLink(InterfaceKind, InterfaceLink)
        /// Put the interface in this state (it may already be in it).
        case setState(InterfaceKind, InterfaceState)
        /// The profile changed the interface's state to this, but the driver holds it
        /// down: not applied (rule 3).
        case held(InterfaceKind, profile: InterfaceState)
        /// The driver brought up an interface that the profile has in this (down) state
        /// (rule 4).
        case overridden(InterfaceKind, profile: InterfaceState)
    }

    private(set) var lanes: [InterfaceKind: Lane]

    /// The lanes at the start: `initial` is the profile's setup of each interface,
    /// `holds` the interfaces the driver holds down from the start, with their mode.
    init(initial: [InterfaceKind: InterfaceSetup], holds: [InterfaceKind: DownMode] = [:]) {
        var lanes: [InterfaceKind: Lane] = [:]
        for kind in InterfaceKind.allCases {
            let profile = initial[kind]?.state ?? InterfaceSetup.defaultSetup(for: kind).state
            let hold = holds[kind]
            lanes[kind] = Lane(profile: profile, hold: hold, state: hold.map { .down($0) } ?? profile)
        }
        self.lanes = lanes
    }

    /// The state each interface starts in (rule 1).
    var states: [InterfaceKind: InterfaceState] { lanes.mapValues(\.state) }

    /// A phase of the profile's timeline is due: its link changes apply (rule 2); its
    /// state changes apply unless the driver holds the interface (rule 3). A phase that
    /// names an interface without changing its state leaves the state alone.
    mutating func play(_ phase: Phase) -> [Action] {
        var actions: [Action] = []
        for (kind, setup) in phase.changes.sorted(by: { $0.key < $1.key }) {
            guard var lane = lanes[kind] else { continue }
            actions.append(.setLink(kind, setup.link))
            if setup.state != lane.profile {
                lane.profile = setup.state
                if lane.hold != nil {
                    actions.append(.held(kind, profile: setup.state))
                } else {
                    lane.state = setup.state
                    actions.append(.setState(kind, setup.state))
                }
            }
            lanes[kind] = lane
        }
        return actions
    }

    /// The driver sets an interface's state: down holds it down (rule 3), up lifts the
    /// hold and brings it up (rule 4).
    mutating func step(_ kind: InterfaceKind, _ state: InterfaceState) -> [Action] {
        guard var lane = lanes[kind] else { return [] }
        var actions: [Action] = []
        switch state {
        case .down(let mode):
            lane.hold = mode
        case .up:
            lane.hold = nil
            if lane.profile != .up { actions.append(.overridden(kind, profile: lane.profile)) }
        }
        lane.state = state
        lanes[kind] = lane
        actions.append(.setState(kind, state))
        return actions
    }
}
