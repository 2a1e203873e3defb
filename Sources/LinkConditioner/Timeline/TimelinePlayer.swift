import BenchCore

/// Plays a profile's timeline: says which phases are due as time passes.
///
/// A pure state machine owned by the driver (loop thread). The driver arms a timer
/// for `nextDeadline()`, calls `due(now:)` when it fires and applies the returned
/// phases in order. Phases beyond the profile's duration are never played: the
/// run ends first (`endOfRun`).
///
/// A test driving the bench may pause the timeline (no phase is due while paused, and
/// its position stands still), resume it (its start shifts by the pause) or move it to
/// a position (`move(to:now:)`): forward, the phases passed over are due at once; back,
/// the driver starts again from the profile's initial setup and plays the phases up to
/// the position, so the network is what the timeline says there.
struct TimelinePlayer: Sendable {
    /// Monotonic ns at which the timeline's offset zero is (or would be, had it played
    /// without pauses or moves).
    private(set) var start: UInt64
    /// The profile's duration, ns.
    let duration: UInt64
    /// The phases that will be played, in order of `at` (ties keep profile order).
    let phases: [Phase]
    /// Index of the next phase to play.
    private(set) var nextIndex = 0
    /// Monotonic ns at which the timeline was paused; nil while it plays.
    private(set) var pausedAt: UInt64?

    init(profile: Profile, start: UInt64) {
        self.start = start
        let duration = profile.duration.nanoseconds
        self.duration = duration
        // `Profile.init` sorts its timeline; sort again (stably) in case it was edited since.
        let ordered = profile.timeline.enumerated()
            .sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
            .map(\.element)
        self.phases = ordered.filter { $0.at.nanoseconds <= duration }
    }

    /// Monotonic ns at which the run ends: start + duration.
    var endOfRun: UInt64 {
        let (sum, overflow) = start.addingReportingOverflow(duration)
        return overflow ? .max : sum
    }

    /// Whether the timeline is paused.
    var isPaused: Bool { pausedAt != nil }

    /// The timeline's position at `now`, ns from its offset zero.
    func position(now: UInt64) -> UInt64 {
        let at = pausedAt ?? now
        return at > start ? at - start : 0
    }

    /// Stops the timeline at its position; false when it was paused already.
    mutating func pause(now: UInt64) -> Bool {
        guard pausedAt == nil else { return false }
        pausedAt = now
        return true
    }

    /// Plays the timeline on from where it was paused; false when it was not paused.
    mutating func resume(now: UInt64) -> Bool {
        guard let pausedAt else { return false }
        start += now > pausedAt ? now - pausedAt : 0
        self.pausedAt = nil
        return true
    }

    /// What moving the timeline to a position asks of the driver.
    struct Move: Sendable, Equatable {
        /// Start again from the profile's initial setup first (the move went back).
        var fromInitial: Bool
        /// The phases to apply now, in order.
        var phases: [Phase]
    }

    /// Moves the timeline to `offset` ns (at most the duration), paused or playing as it
    /// was: forward, the phases passed over are due now; back, the driver starts again
    /// from the initial setup and applies every phase up to `offset`.
    mutating func move(to offset: UInt64, now: UInt64) -> Move {
        let target = min(offset, duration)
        let back = target < position(now: now)
        if back { nextIndex = 0 }
        var passed: [Phase] = []
        while nextIndex < phases.count, phases[nextIndex].at.nanoseconds <= target {
            passed.append(phases[nextIndex])
            nextIndex += 1
        }
        // A monotonic clock's now is far past any profile's duration: `at - target` is the
        // start that puts the position at the target (paused: it stays there).
        let at = pausedAt ?? now
        start = at > target ? at - target : 0
        return Move(fromInitial: back, phases: passed)
    }

    /// Phases whose instant (start + at) is at or before `now` and that were not
    /// returned before, in timeline order; none while paused. Each phase is returned
    /// exactly once, unless a move back plays the timeline again.
    mutating func due(now: UInt64) -> [Phase] {
        guard pausedAt == nil else { return [] }
        var result: [Phase] = []
        while nextIndex < phases.count, instant(of: phases[nextIndex]) <= now {
            result.append(phases[nextIndex])
            nextIndex += 1
        }
        return result
    }

    /// Absolute ns of the next phase; nil once every phase was played, or while paused. The end of
    /// the run is not a deadline of the player: see `endOfRun`.
    func nextDeadline() -> UInt64? {
        pausedAt == nil && nextIndex < phases.count ? instant(of: phases[nextIndex]) : nil
    }

    /// True once every phase was played.
    var isFinished: Bool { nextIndex >= phases.count }

    private func instant(of phase: Phase) -> UInt64 {
        let (sum, overflow) = start.addingReportingOverflow(phase.at.nanoseconds)
        return overflow ? .max : sum
    }
}
