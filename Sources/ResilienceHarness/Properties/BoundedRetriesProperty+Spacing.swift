import BenchCore

extension RetryOutage {
    /// The spacing check: within the outage, the app's attempts on its interfaces, each
    /// timed from the latest failure before it of an attempt made more than the window
    /// earlier (a refused attempt fails as it is made; an accepted one when the
    /// conditioner reset it or the connection closed; a transfer the outage cut, when it
    /// ended; attempts made together fail together and are not retries of each other). A retry within `context.retryImmediateWindow` of
    /// that failure is immediate; more than `retryImmediateRun` immediate retries in a
    /// row, per transfer the outage cut (or per connection of the app open on those
    /// interfaces when it began, if more), means the app does not back off, however few
    /// its attempts are (an app that gives a stalled connection up after 4 s and
    /// reconnects in 1 ms stays under any count). Nil when the bound holds.
    func judgeSpacing(_ trace: ScenarioTrace, _ context: PropertyContext) -> (t: UInt64, text: String)? {
        let start = interval.start
        let end = interval.end ?? trace.end
        let attempts = trace.connectionAttempts(on: allowed, from: start, before: interval.end).sorted { $0.t < $1.t }
        guard attempts.count > 1 else { return nil }
        let closed = Dictionary(
            trace.conditionerConnections().compactMap { connection in connection.closed.map { (connection.id, $0) } },
            uniquingKeysWith: min)
        var failures: [(start: UInt64, end: UInt64)] = []
        for attempt in trace.connectionAttempts where allowed.contains(attempt.interface) {
            let ended = attempt.outcome == .refused
                ? attempt.t : [attempt.resetAt, attempt.connection.flatMap { closed[$0.rawValue] }].compactMap { $0 }.min()
            if let ended, ended >= start, ended <= end { failures.append((attempt.t, ended)) }
        }
        failures.sort { $0.end < $1.end }
        let window = context.retryImmediateWindow.nanoseconds
        // What the outage cut: its transfers, or the app's connections open on those
        // interfaces when it began if more (an app with two segments on their way has two
        // connections, and each may be reopened once at once, as HTTP clients do with a
        // connection found closed).
        let open = trace.conditionerConnections().filter {
            allowed.contains($0.interface) && $0.accepted < start && ($0.closed ?? .max) >= start
        }.count
        let transferring = max(transfersCut, open)
        let limit = context.retryImmediateRun * transferring
        var run: [(attempt: UInt64, failure: UInt64)] = []
        for attempt in attempts {
            // The latest failure before the attempt of an attempt made before it, not beside
            // it: connections opened together (two segments at once) fail together, and
            // the second is not a retry of the first.
            let failure = failures.last { $0.end <= attempt.t && $0.start.plus(window) < attempt.t }?.end
            guard let failure, attempt.t - failure <= window else {
                run = []
                continue
            }
            run.append((attempt.t, failure))
            guard run.count > limit else { continue }
            let names = allowed.map(\.rawValue).sorted().joined(separator: " or ")
            let listed = run.map { "\(Wording.time($0.attempt)) (\(Wording.seconds($0.attempt - $0.failure)) after a failure)" }
            return (run[0].attempt, "\(run.count) retries in a row on \(names), each within "
                + "\(Wording.bound(context.retryImmediateWindow)) of the failure before it, during the outage from "
                + "\(Wording.time(interval.start)) (\(interval.startCause)): \(listed.joined(separator: ", ")); at most "
                + "\(limit) in a row (\(context.retryImmediateRun) per transfer or open connection cut, "
                + "\(transferring) cut): no backoff")
        }
        return nil
    }
}
