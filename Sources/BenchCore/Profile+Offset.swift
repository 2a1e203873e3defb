/// A profile played from a point of its timeline: what a scenario with `profile-from`
/// runs under (docs/scenario-format.md), so a short scenario can meet a long profile's
/// later events.
extension Profile {
    /// This profile as if it started `offset` into its timeline.
    ///
    /// - Each interface starts as the last phase at or before `offset` left it (its
    ///   initial setup when none changed it).
    /// - Later phases and origin fault windows come `offset` earlier; a window open at
    ///   `offset` starts at 0 with what is left of it; earlier ones are dropped.
    /// - A rate trace in force at `offset` continues where it was: it is rotated by the
    ///   time since it was switched in (`RateTrace.starting(at:)`), and a later phase that
    ///   sets the same trace again keeps the rotated one, as the conditioner keeps a trace
    ///   that did not change.
    /// - `duration` shrinks by `offset` (to 0 at most).
    /// Name, seed and path-update policy stay.
    public func starting(at offset: Duration) -> Profile {
        guard offset > .zero else { return self }
        var shifted = self
        var initial: [InterfaceKind: InterfaceSetup] = [:]
        var carried: [InterfaceKind: TraceCarry] = [:]
        for (kind, start) in self.initial {
            var setup = start
            var carry = TraceCarry(setup: start, at: .zero)
            for phase in timeline where phase.at <= offset {
                guard let change = phase.changes[kind] else { continue }
                carry.switchTo(change, at: phase.at)
                setup = change
            }
            carry.rotate(to: offset)
            initial[kind] = carry.applied(to: setup)
            carried[kind] = carry
        }
        shifted.initial = initial
        shifted.timeline = timeline.filter { $0.at > offset }.map { phase in
            var moved = phase
            moved.at = phase.at - offset
            for (kind, change) in phase.changes {
                if var carry = carried[kind] {
                    carry.switchTo(change, at: phase.at)
                    moved.changes[kind] = carry.applied(to: change)
                    carried[kind] = carry
                }
            }
            return moved
        }
        shifted.origin = origin.filter { $0.end > offset }.map { window in
            var moved = window
            moved.at = window.at > offset ? window.at - offset : .zero
            moved.duration = window.end - offset - moved.at
            return moved
        }
        shifted.duration = duration > offset ? duration - offset : .zero
        return shifted
    }
}

/// Per direction of one interface: the rate trace in force as the profile wrote it, and
/// the rotated one that replaces it while it stays in force.
private struct TraceCarry {
    var downlink: Carry
    var uplink: Carry

    struct Carry {
        var original: RateTrace?
        var since: Duration
        var rotated: RateTrace?

        mutating func switchTo(_ rate: RateSpec, at t: Duration) {
            guard case .trace(let trace) = rate else {
                (original, rotated) = (nil, nil)
                return
            }
            guard trace != original else { return }
            (original, since, rotated) = (trace, t, nil)
        }

        func applied(to rate: RateSpec) -> RateSpec {
            guard case .trace(let trace) = rate, trace == original, let rotated else { return rate }
            return .trace(rotated)
        }
    }

    init(setup: InterfaceSetup, at t: Duration) {
        downlink = Carry(original: nil, since: t, rotated: nil)
        uplink = Carry(original: nil, since: t, rotated: nil)
        switchTo(setup, at: t)
    }

    mutating func switchTo(_ setup: InterfaceSetup, at t: Duration) {
        downlink.switchTo(setup.link.downlink.rate, at: t)
        uplink.switchTo(setup.link.uplink.rate, at: t)
    }

    /// Rotates each trace in force by the time it has played at `offset`.
    mutating func rotate(to offset: Duration) {
        for path in [\TraceCarry.downlink, \TraceCarry.uplink] {
            if let trace = self[keyPath: path].original {
                self[keyPath: path].rotated = trace.starting(at: (offset - self[keyPath: path].since).nanoseconds)
            }
        }
    }

    func applied(to setup: InterfaceSetup) -> InterfaceSetup {
        var changed = setup
        changed.link.downlink.rate = downlink.applied(to: setup.link.downlink.rate)
        changed.link.uplink.rate = uplink.applied(to: setup.link.uplink.rate)
        return changed
    }
}

extension RateTrace {
    /// The trace as it plays from `offset` nanoseconds on: a looping trace rotated (the
    /// segment at `offset` cut, the ones before it moved to the end); a non-looping one
    /// without what it has played (its last rate alone once past its end).
    public func starting(at offset: UInt64) -> RateTrace {
        let period = periodNanoseconds
        guard offset > 0 else { return self }
        if !loops && offset >= period {
            return RateTrace(name: name, segments: [Segment(durationNanoseconds: 1, bitsPerSecond: segments.last!.bitsPerSecond)],
                             loops: false)
        }
        let local = loops ? offset % period : offset
        guard local > 0 else { return self }
        var before: [Segment] = []
        var after: [Segment] = []
        var start: UInt64 = 0
        for segment in segments {
            let end = start + segment.durationNanoseconds
            if end <= local {
                before.append(segment)
            } else if start >= local {
                after.append(segment)
            } else {
                before.append(Segment(durationNanoseconds: local - start, bitsPerSecond: segment.bitsPerSecond))
                after.append(Segment(durationNanoseconds: end - local, bitsPerSecond: segment.bitsPerSecond))
            }
            start = end
        }
        return RateTrace(name: name, segments: loops ? after + before : after, loops: loops)
    }
}
