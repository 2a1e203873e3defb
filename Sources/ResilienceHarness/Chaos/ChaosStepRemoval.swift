/// Removing steps from a scenario file so that what is left is still a valid file: a
/// pure function the shrinker makes its candidates with.
///
/// Dropping a `request` drops what names its download: the user's actions on it and a
/// `cancel-if-unsettled` of it are dropped, and it is taken out of the lists of
/// `wait-settled`, `inspect`, `hold-until … or-settled` and of `settled` and `any`
/// triggers (a step whose list or trigger is left empty is dropped); a wait on a trigger
/// that names only it is dropped. Dropping a `mark` drops the `hold-until`s that name it.
///
/// Nor may a removal leave what a correct app could not pass, which would make a
/// candidate fail for the removal's sake (`grounded`): a `background` with no
/// `prepare-for-background` before it is dropped; a force-quit or a reboot kill is
/// dropped unless every download requested before it but the last one was waited on
/// until it settled (those an earlier crash interrupted must complete, and the kill
/// would fail them); and a request that takes the user's cellular setting after a
/// relaunch with no setting given since gets the setting written out (an app need not
/// keep it across a relaunch).
public enum ChaosStepRemoval {
    /// `file` without the steps at `indices` and what depends on them; nil when nothing
    /// is left, or when the result does not read back as a valid scenario file.
    public static func removing(_ indices: Set<Int>, from file: ScenarioFile) -> ScenarioFile? {
        var goneDownloads: Set<String> = []
        var goneMarks: Set<String> = []
        var kept: [ScenarioStep] = []
        for (index, step) in file.steps.enumerated() {
            if indices.contains(index) {
                if case .request(let request) = step { goneDownloads.insert(request.name) }
                if case .mark(let mark) = step { goneMarks.insert(mark) }
                continue
            }
            if let rewritten = rewrite(step, without: goneDownloads, marks: goneMarks) { kept.append(rewritten) }
        }
        guard !kept.isEmpty else { return nil }
        var result = file
        result.steps = grounded(kept)
        guard (try? ScenarioFile.parse(yaml: result.yaml)) == result else { return nil }
        return result
    }

    /// `step` with the downloads and marks that are gone taken out of it; nil when it
    /// cannot stand without them.
    static func rewrite(_ step: ScenarioStep, without gone: Set<String>, marks: Set<String>) -> ScenarioStep? {
        switch step {
        case .user(_, let name), .userIfInFlight(_, let name), .cancelIfUnsettled(let name):
            return gone.contains(name) ? nil : step
        case .wait(var wait):
            guard let trigger = rewrite(wait.until, without: gone) else { return nil }
            wait.until = trigger
            return .wait(wait)
        case let .waitSettled(set, timeout):
            return rewrite(set, without: gone).map { .waitSettled($0, timeout: timeout) }
        case .inspect(let set):
            return rewrite(set, without: gone).map { .inspect($0) }
        case .holdUntil(var hold):
            if marks.contains(hold.mark) { return nil }
            if let set = hold.orSettled { hold.orSettled = rewrite(set, without: gone) }
            return .holdUntil(hold)
        default:
            return step
        }
    }

    private static func rewrite(_ set: ScenarioDownloads, without gone: Set<String>) -> ScenarioDownloads? {
        guard case .named(let names) = set else { return set }
        let left = names.filter { !gone.contains($0) }
        return left.isEmpty && !names.isEmpty ? nil : .named(left)
    }

    private static func rewrite(_ trigger: ScenarioTrigger, without gone: Set<String>) -> ScenarioTrigger? {
        switch trigger {
        case .progress(let name, _), .state(let name, _), .segments(let name, _):
            return gone.contains(name) ? nil : trigger
        case .settled(let set):
            return rewrite(set, without: gone).map { .settled($0) }
        case .segmentsSinceLaunch:
            return trigger
        case .any(let triggers):
            let left = triggers.compactMap { rewrite($0, without: gone) }
            return left.isEmpty ? nil : .any(left)
        }
    }

    /// `steps` without what a correct app could not pass (see above), in order.
    static func grounded(_ steps: [ScenarioStep]) -> [ScenarioStep] {
        var result: [ScenarioStep] = []
        var prepared = false
        var setting = false
        var relaunchedSinceSetting = false
        var requests: [(name: String, index: Int)] = []
        var settled: [String: Int] = [:]
        for var step in steps {
            switch step {
            case .prepareForBackground: prepared = true
            case .background:
                guard prepared else { continue }
                prepared = false
            case .setAllowsCellular(let allowed): (setting, relaunchedSinceSetting) = (allowed, false)
            case .kill(let kind, _):
                if kind.failsDownloadsInFlight {
                    let waited = requests.dropLast().allSatisfy { request in settled[request.name].map { $0 > request.index } ?? false }
                    guard waited else { continue }
                }
                relaunchedSinceSetting = true
            case .request(var request):
                if request.allowsCellular == nil, relaunchedSinceSetting {
                    request.allowsCellular = setting
                    step = .request(request)
                }
                requests.append((request.name, result.count))
            case .waitSettled(.named(let names), _): for name in names { settled[name] = result.count }
            case .waitSettled(.all, _): for request in requests { settled[request.name] = result.count }
            case .wait(let wait) where !wait.optional:
                if case .state(let name, let states) = wait.until, states.contains(.downloaded) { settled[name] = result.count }
            default: break
            }
            result.append(step)
        }
        return result
    }
}
