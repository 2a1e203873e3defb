import BenchCore

/// Decides when a change of the device's network path reaches the app, the way an
/// OS path monitor would: at once, late, or never.
///
/// A pure state machine owned by the conditioner (loop thread). The conditioner
/// reports every change of the true path with `pathChanged`; the publications it
/// must send come out of `advance(to:)` (an immediate change is due at once, so
/// the driver calls `advance(to: now)` right after).
///
/// Rules:
/// - `.immediate`: published at `now`.
/// - `.delayed(d)`: published at `now + d`.
/// - `.withheld`: never published; the app keeps the stale path it last saw.
/// - A newer change supersedes a pending (delayed) publication, whatever the newer
///   change's policy: at most one publication is pending, and it is always of the
///   newest path. We chose superseding over queueing so that publications can never
///   go out of order and the app never receives a path that is already stale when a
///   newer one exists (a later `.withheld` change therefore also cancels a pending
///   one: the app goes on seeing what it last saw).
/// - A publication equal to the last published path is not sent again.
/// - An interface that changes state without changing the true path (`stateChanged`)
///   is an event the app hears of by its policy when what it last saw is stale and
///   nothing is pending: a withheld change is not told, but it is not hidden forever
///   from the next change the OS does report.
struct PathPublisher: Sendable {
    /// The path the app saw last (the initial path counts as published at start).
    private(set) var lastPublished: NetworkPath
    /// The true path as the conditioner last reported it.
    private(set) var current: NetworkPath
    /// The publication waiting for its time, if any.
    private(set) var pending: (path: NetworkPath, at: UInt64)?

    init(initial: NetworkPath, now: UInt64) {
        lastPublished = initial
        current = initial
    }

    /// The true path changed to `path` at `now`; `policy` says how the app learns it.
    mutating func pathChanged(to path: NetworkPath, policy: PathUpdatePolicy, now: UInt64) {
        current = path
        switch policy {
        case .immediate:
            pending = (path, now)
        case .delayed(let delay):
            let (at, overflow) = now.addingReportingOverflow(delay.nanoseconds)
            pending = (path, overflow ? .max : at)
        case .withheld:
            pending = nil
        }
    }

    /// An interface changed state at `now` but the true path is still `current` (it
    /// came up from blackhole, say): when the app last saw another path and no
    /// publication is pending, `current` is published by `policy`, as a change would be.
    mutating func stateChanged(policy: PathUpdatePolicy, now: UInt64) {
        guard pending == nil, current != lastPublished else { return }
        pathChanged(to: current, policy: policy, now: now)
    }

    /// The publications due at `now` (zero or one), in order.
    mutating func advance(to now: UInt64) -> [NetworkPath] {
        guard let due = pending, due.at <= now else { return [] }
        pending = nil
        guard due.path != lastPublished else { return [] }
        lastPublished = due.path
        return [due.path]
    }

    /// Absolute ns of the pending publication; nil when none is pending.
    func nextDeadline() -> UInt64? {
        pending?.at
    }
}
