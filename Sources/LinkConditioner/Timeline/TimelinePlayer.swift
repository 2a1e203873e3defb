import BenchCore

/// Plays a profile's timeline: says which phases are due as time passes.
///
/// A pure state machine owned by the driver (loop thread). The driver arms a timer
/// for `nextDeadline()`, calls `due(now:)` when it fires and applies the returned
/// phases in order. Phases beyond the profile's duration are never played: the
/// run ends first (`endOfRun`).
struct TimelinePlayer: Sendable {
    /// Monotonic ns at which the run started (offset zero of the timeline).
    let start: UInt64
    /// Monotonic ns at which the run ends: start + duration.
    let endOfRun: UInt64
    /// The phases that will be played, in order of `at` (ties keep profile order).
    let phases: [Phase]
    /// Index of the next phase to play.
    private(set) var nextIndex = 0

    init(profile: Profile, start: UInt64) {
        self.start = start
        let duration = profile.duration.nanoseconds
        self.endOfRun = start.addingReportingOverflow(duration).overflow ? .max : start + duration
        // `Profile.init` sorts its timeline; sort again (stably) in case it was edited since.
        let ordered = profile.timeline.enumerated()
            .sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
            .map(\.element)
        self.phases = ordered.filter { $0.at.nanoseconds <= duration }
    }

    /// Phases whose instant (start + at) is at or before `now` and that were not
    /// returned before, in timeline order. Each phase is returned exactly once.
    mutating func due(now: UInt64) -> [Phase] {
        var result: [Phase] = []
        while nextIndex < phases.count, instant(of: phases[nextIndex]) <= now {
            result.append(phases[nextIndex])
            nextIndex += 1
        }
        return result
    }

    /// Absolute ns of the next phase; nil once every phase was played. The end of
    /// the run is not a deadline of the player: see `endOfRun`.
    func nextDeadline() -> UInt64? {
        nextIndex < phases.count ? instant(of: phases[nextIndex]) : nil
    }

    /// True once every phase was played.
    var isFinished: Bool { nextIndex >= phases.count }

    private func instant(of phase: Phase) -> UInt64 {
        let (sum, overflow) = start.addingReportingOverflow(phase.at.nanoseconds)
        return overflow ? .max : sum
    }
}
