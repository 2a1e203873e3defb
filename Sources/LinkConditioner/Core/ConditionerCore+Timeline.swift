import BenchCore

/// What a driver does to the profile's timeline (`LinkConditioner.controlTimeline`).
public enum TimelineControl: Sendable, Equatable {
    /// Stops the timeline where it is: no phase plays until it is resumed.
    case pause
    /// Plays it on from where it was paused.
    case resume
    /// Moves it to a position (at most the profile's duration), paused or playing as it
    /// was: forward, the phases passed over apply at once; back, the profile's initial
    /// setup is restored and the phases up to the position apply.
    case move(to: Duration)
}

/// Where the profile's timeline is (`ConditionerSnapshot.timeline`).
public struct TimelineStatus: Codable, Equatable, Sendable {
    /// Seconds from the timeline's start.
    public var position: Double
    /// The profile's duration, seconds.
    public var duration: Double
    public var paused: Bool
    /// How many of the profile's phases (those within its duration) have played.
    public var phasesPlayed: Int
    public var phases: Int
    /// The next phase's offset (seconds) and label; nil once all played.
    public var nextPhaseAt: Double?
    public var nextPhaseLabel: String?

    init(_ player: TimelinePlayer, now: UInt64) {
        position = Double(player.position(now: now)) / 1e9
        duration = Double(player.duration) / 1e9
        paused = player.isPaused
        phasesPlayed = player.nextIndex
        phases = player.phases.count
        let next = player.nextIndex < player.phases.count ? player.phases[player.nextIndex] : nil
        nextPhaseAt = next?.at.seconds
        nextPhaseLabel = next?.label
    }
}

extension ConditionerCore {
    /// Pauses, resumes or moves the timeline; a control that changes nothing (a pause
    /// while paused) is not reported.
    func controlTimeline(_ control: TimelineControl) {
        guard var player = timeline else { return }
        let current = now
        switch control {
        case .pause, .resume:
            let changed = control == .pause ? player.pause(now: current) : player.resume(now: current)
            timeline = player
            guard changed else { return }
            emit(.timelineControlled(action: control == .pause ? .paused : .resumed,
                                     at: Double(player.position(now: current)) / 1e9))
        case .move(let offset):
            let move = player.move(to: offset.nanoseconds, now: current)
            timeline = player
            emit(.timelineControlled(action: .moved, at: Double(player.position(now: current)) / 1e9))
            if move.fromInitial { apply(initialPhase, index: -1) }
            for phase in move.phases { apply(phase, index: phaseIndex(phase)) }
            if player.isFinished, !move.phases.isEmpty { emit(.timelineFinished) }
        }
    }

    /// The profile's initial setup of every interface, as a phase at zero: what a move
    /// back starts again from (under the overlay rule: the driver's holds stay).
    private var initialPhase: Phase {
        let profile = configuration.profile
        var changes: [InterfaceKind: InterfaceSetup] = [:]
        for kind in InterfaceKind.allCases { changes[kind] = profile.initial[kind] ?? .defaultSetup(for: kind) }
        return Phase(at: .zero, label: "the profile's start", changes: changes)
    }
}
