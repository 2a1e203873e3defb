/// Shrinks a failing scenario file to fewer steps that still fail the same way, by
/// delta debugging: try removing chunks of steps, halving the chunks when none can go,
/// down to single steps; keep a candidate when it still fails. Candidates are made by
/// `ChaosStepRemoval` (what depends on a removed step goes with it, and every candidate
/// is a valid file). Some steps stay (`essential`): every `launch` (without the app
/// nothing can fail the same way), and for each download the last wait until it settled
/// (a chaos scenario ends by waiting for its downloads: a candidate that ended before
/// they could finish would fail for that alone, e.g. `crash-recovery`'s "every
/// download completes after a crash"). Dropping a download's request still drops them.
///
/// A value type fed one answer per candidate, with no I/O: `next()` gives the candidate
/// to try, `record(stillFails:)` says whether it still failed. The caller runs the
/// candidates (through the harness, or a fake predicate in tests) and bounds the work
/// with `maximumRuns`. Three phases: first whole events (a `note` starts one, as the
/// chaos generator writes them; steps before the first note are one each), then every
/// note at once, then single steps. A candidate tried once is not tried again.
public struct ChaosShrinker: Sendable {
    /// Why the shrinking stopped.
    public enum Stop: String, Sendable, Hashable {
        /// No single removable step can go: the file is minimal for this search.
        case minimal
        /// `maximumRuns` candidates were tried.
        case runBudget
        /// The caller's time budget ran out (`outOfTime()`).
        case timeBudget
    }

    private enum Phase: Sendable { case events, notes, steps }

    /// The smallest file known to fail so far (at first, the file given).
    public private(set) var best: ScenarioFile
    /// Candidates handed out so far.
    public private(set) var runs = 0
    public let maximumRuns: Int
    /// Set once `next()` has nothing more to try.
    public private(set) var stop: Stop?
    private var phase = Phase.events
    private var granularity = 2
    private var chunk = 0
    private var pending: ScenarioFile?
    private var tried: Set<ScenarioFile> = []

    /// A shrinker of `file` (which fails), trying at most `maximumRuns` candidates.
    public init(_ file: ScenarioFile, maximumRuns: Int) {
        best = file
        self.maximumRuns = maximumRuns
    }

    /// The next candidate to run, or nil when done (`stop` says why). Call
    /// `record(stillFails:)` with its outcome before asking again.
    public mutating func next() -> ScenarioFile? {
        precondition(pending == nil, "record the outcome of the last candidate before asking for another")
        while stop == nil {
            guard runs < maximumRuns else {
                stop = .runBudget
                return nil
            }
            if phase == .notes {
                enter(.steps)
                let notes = best.steps.indices.filter { if case .note = best.steps[$0] { true } else { false } }
                if !notes.isEmpty, let candidate = candidate(removing: Set(notes)) { return issue(candidate) }
                continue
            }
            let units = units()
            guard !units.isEmpty else {
                advance()
                continue
            }
            let n = min(granularity, units.count)
            guard chunk < n else {
                if n >= units.count { advance() } else { (granularity, chunk) = (min(n * 2, units.count), 0) }
                continue
            }
            let part = units[chunk * units.count / n ..< (chunk + 1) * units.count / n].flatMap { $0 }
            chunk += 1
            if let candidate = candidate(removing: Set(part)) { return issue(candidate) }
        }
        return nil
    }

    /// The outcome of the candidate `next()` gave: when it still failed it becomes the
    /// best, and the search goes on from it with chunks a little larger.
    public mutating func record(stillFails: Bool) {
        guard let candidate = pending else { preconditionFailure("no candidate is waiting for an outcome") }
        pending = nil
        guard stillFails else { return }
        best = candidate
        (granularity, chunk) = (max(granularity - 1, 2), 0)
    }

    /// The caller's time is up: `next()` gives nothing more.
    public mutating func outOfTime() {
        if stop == nil { stop = .timeBudget }
    }

    /// Shrinks `file` with `stillFails` as the judge (a pure predicate in tests; the
    /// chaos runner drives `next`/`record` itself, through the harness).
    public static func shrink(
        _ file: ScenarioFile, maximumRuns: Int, stillFails: (ScenarioFile) -> Bool
    ) -> ChaosShrinker {
        var shrinker = ChaosShrinker(file, maximumRuns: maximumRuns)
        while let candidate = shrinker.next() { shrinker.record(stillFails: stillFails(candidate)) }
        return shrinker
    }

    /// The removable units of `best` in this phase, each a set of step indices.
    private func units() -> [[Int]] {
        let kept = Self.essential(best.steps)
        let removable = best.steps.indices.filter { !kept.contains($0) }
        switch phase {
        case .steps, .notes: return removable.map { [$0] }
        case .events:
            guard removable.contains(where: { if case .note = best.steps[$0] { true } else { false } }) else { return [] }
            var units: [[Int]] = []
            var inEvent = false
            for index in removable {
                if case .note = best.steps[index] { inEvent = true; units.append([index]); continue }
                if inEvent { units[units.count - 1].append(index) } else { units.append([index]) }
            }
            return units
        }
    }

    /// The steps never removed: every `launch`, and for each download (and for `all`)
    /// the last wait until it settled (`wait-settled`, or a wait that is not optional on
    /// a state trigger that includes `downloaded`).
    static func essential(_ steps: [ScenarioStep]) -> Set<Int> {
        var last: [String: Int] = [:]
        var launches: Set<Int> = []
        for (index, step) in steps.enumerated() {
            switch step {
            case .launch: launches.insert(index)
            case .waitSettled(.all, _): last["all"] = index
            case .waitSettled(.named(let names), _): for name in names { last[name] = index }
            case .wait(let wait) where !wait.optional:
                if case .state(let name, let states) = wait.until, states.contains(.downloaded) { last[name] = index }
            default: break
            }
        }
        return launches.union(last.values)
    }

    private mutating func advance() {
        switch phase {
        case .events: enter(.notes)
        case .notes: enter(.steps)
        case .steps: stop = .minimal
        }
    }

    private mutating func enter(_ next: Phase) {
        (phase, granularity, chunk) = (next, 2, 0)
    }

    private func candidate(removing indices: Set<Int>) -> ScenarioFile? {
        guard let candidate = ChaosStepRemoval.removing(indices, from: best), candidate != best, !tried.contains(candidate)
        else { return nil }
        return candidate
    }

    private mutating func issue(_ candidate: ScenarioFile) -> ScenarioFile {
        pending = candidate
        tried.insert(candidate)
        runs += 1
        return candidate
    }
}
