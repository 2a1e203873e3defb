import AppProtocol
import BenchCore

/// Plays a scenario file's steps, in order, against a `ScenarioContext`: each step is
/// one call (or a short, fixed sequence of calls) of the context. Keeps what the steps
/// named: the token of each download by its name, the instant of each mark.
///
/// Used by the script of `Scenario(file)`, on the scenario's task.
struct ScenarioInterpreter {
    let steps: [ScenarioStep]
    /// The recorded stream requested in place of a fixture video (by the fixture's id):
    /// `request` and `request-spare` ask for it, and name the download as the step says.
    let videos: [String: String]
    /// Downloads requested so far, in request order.
    private(set) var downloads: [(name: String, token: String)] = []
    private var marks: [String: ContinuousClock.Instant] = [:]
    /// The origin-fault windows still open: each closes itself when its time is up.
    var faultWindows: [Task<Void, Never>] = []

    init(steps: [ScenarioStep], videos: [String: String] = [:]) {
        self.steps = steps
        self.videos = videos
    }

    /// Plays every step; throws what the context throws (a trigger that never came…).
    /// Origin-fault windows still open when the steps end are closed then.
    mutating func run(on context: ScenarioContext) async throws {
        do {
            for step in steps { try await play(step, on: context) }
        } catch {
            await closeFaultWindows()
            throw error
        }
        await closeFaultWindows()
    }

    mutating func play(_ step: ScenarioStep, on s: ScenarioContext) async throws {
        switch step {
        case let .up(kind, pathUpdate): await s.setInterface(kind, up: true, pathUpdate: pathUpdate.policy)
        case let .down(kind, mode, pathUpdate): await s.setInterface(kind, up: false, mode: mode, pathUpdate: pathUpdate.policy)
        case let .cut(kind, mode): await s.cutConnections(kind, mode)
        case let .waitForPath(kinds, timeout): try await s.waitForPath(Set(kinds), timeout: timeout)
        case .slowLicenseServer(let delay): try await s.slowLicenseServer(by: delay)
        case .originFault(let fault): try await openFaultWindow(fault, on: s)
        case .launch: try await s.launch()
        case .foreground: try await s.setForeground(true)
        case .background: try await s.setForeground(false)
        case .prepareForBackground: try await s.prepareForBackground()
        case let .kill(kind, inForeground): try await s.crashAndRelaunch(kind, inForeground: inForeground)
        case .request(let request):
            let token = try await s.request(
                videos[request.video] ?? request.video, allowsCellular: request.allowsCellular, rentalSeconds: request.rentalSeconds)
            downloads.append((request.name, token))
        case let .user(action, name): try await s.user(action, token(name))
        case let .userIfInFlight(action, name): try await s.userIfInFlight(action, token(name), name: name)
        case .setAllowsCellular(let allowed): try await s.setAllowsCellular(allowed)
        case let .requestSpare(videos, segments): try await requestSpare(videos, segments: segments, on: s)
        case .cancelIfUnsettled(let name): try await cancelIfUnsettled(name, on: s)
        case .wait(let wait):
            let (condition, description) = try await resolve(wait.until, on: s)
            if wait.optional {
                try? await s.wait(wait.label ?? description, timeout: wait.timeout, until: condition)
            } else {
                try await s.wait(wait.label ?? description, timeout: wait.timeout, until: condition)
            }
        case let .waitSettled(set, timeout): try await s.waitSettled(tokens(set), timeout: timeout)
        case .waitForMediaResponse(let timeout): try await s.waitForMediaResponse(timeout: timeout)
        case let .waitForRequest(glob, timeout): try await s.waitForRequest(matching: glob, timeout: timeout)
        case .hold(let duration): try await s.hold(duration)
        case .mark(let name): marks[name] = .now
        case .holdUntil(let hold): try await holdUntil(hold, on: s)
        case .note(let text): await s.note(text)
        case .inspect(let set): for token in try tokens(set) { try await s.inspect(token) }
        }
    }

    /// `request-spare`: when every download has settled, the first video not requested
    /// yet, until `segments` of it are stored.
    private mutating func requestSpare(_ videos: [String], segments: Int, on s: ScenarioContext) async throws {
        guard await s.allSettled(downloads.map(\.token)),
            let spare = videos.first(where: { video in !downloads.contains { $0.name == video } })
        else { return }
        let token = try await s.request(self.videos[spare] ?? spare)
        downloads.append((spare, token))
        try await s.wait("\(spare): \(segments) segments stored") { live in
            (live.segments[token] ?? 0) >= segments || [.downloaded, .failed].contains(live.states[token])
        }
    }

    /// `cancel-if-unsettled`: the user cancels a download that has not settled. One that
    /// settles as the user taps (the app refuses: nothing in flight) is noted and kept, as
    /// `userIfInFlight` does (sequential gate run: the late half's download completed the
    /// instant its window closed).
    private func cancelIfUnsettled(_ name: String, on s: ScenarioContext) async throws {
        let token = try token(name)
        guard await !s.allSettled([token]) else { return }
        await s.note("download \(token) (\(name)) was not finished: the user cancels it")
        try await s.userIfInFlight(.cancel, token, name: name)
        guard ![.downloaded, .failed].contains(s.collector.live.states[token]) else { return }
        try await s.wait("the cancelled download to be gone", timeout: ScenarioStep.goneTimeout) {
            $0.states[token] == .notDownloaded
        }
    }

    /// `hold-until`: sleeps until the mark plus the offset, or until the downloads settle.
    private func holdUntil(_ hold: ScenarioHoldUntil, on s: ScenarioContext) async throws {
        guard let start = marks[hold.mark] else { throw ScenarioError.script("no mark named \(hold.mark) was made") }
        var offset = switch hold.plus {
        case .duration(let duration): duration
        case .profileDuration: s.profile.duration
        }
        if let atMost = hold.atMost { offset = min(offset, atMost) }
        let deadline = start + offset
        guard let set = hold.orSettled else {
            if ContinuousClock.now < deadline { try await s.hold(deadline - ContinuousClock.now) }
            return
        }
        let watched = try tokens(set)
        while ContinuousClock.now < deadline, await !s.allSettled(watched) {
            try await s.hold(.milliseconds(250))
        }
    }

    private func token(_ name: String) throws -> String {
        guard let found = downloads.first(where: { $0.name == name }) else {
            throw ScenarioError.script("no download named \(name) was requested before this step")
        }
        return found.token
    }

    private func tokens(_ set: ScenarioDownloads) throws -> [String] {
        switch set {
        case .all: downloads.map(\.token)
        case .named(let names): try names.map(token)
        }
    }
}

extension ScenarioInterpreter {
    /// The condition a trigger stands for, with tokens in place of names and any range
    /// drawn (from the scenario's seeded generator, in the order the trigger lists them),
    /// and the description a wait without a label notes.
    private func resolve(
        _ trigger: ScenarioTrigger, on s: ScenarioContext
    ) async throws -> (@Sendable (LiveState) -> Bool, String) {
        switch trigger {
        case let .progress(name, threshold):
            let token = try token(name)
            let description = switch threshold {
            case .atLeast(let bound): "\(name) at \(Self.percent(bound)) %"
            case .above(let bound): "\(name) past \(Self.percent(bound)) %"
            }
            return ({ threshold.holds($0.progress(token)) }, description)
        case let .state(name, states):
            let token = try token(name)
            let description = "\(name) " + (states.count == 1 ? "\(states[0])" : "in one of \(states.map(\.description).joined(separator: ", "))")
            // Reached since the wait began counts, not only the state at a poll.
            let since = s.collector.live.stateChanges
            return ({ live in live.reached(token, states, since: since) }, description)
        case .segmentsSinceLaunch(let count):
            let n = switch count {
            case .exactly(let n): n
            case .random(let range): await s.random(range)
            }
            return ({ $0.segmentsSinceLaunch >= n }, "\(n) segments stored since the launch")
        case let .segments(name, atLeast):
            let token = try token(name)
            return ({ ($0.segments[token] ?? 0) >= atLeast }, "\(name): \(atLeast) segments stored")
        case .settled(let set):
            let tokens = try tokens(set)
            let description = switch set {
            case .all: "every download settled"
            case .named(let names): "\(names.joined(separator: ", ")) settled"
            }
            return ({ live in tokens.allSatisfy { [.downloaded, .failed].contains(live.states[$0]) } }, description)
        case .any(let triggers):
            var conditions: [@Sendable (LiveState) -> Bool] = []
            var descriptions: [String] = []
            for trigger in triggers {
                let (condition, description) = try await resolve(trigger, on: s)
                conditions.append(condition)
                descriptions.append(description)
            }
            let all = conditions
            return ({ live in all.contains { $0(live) } }, descriptions.joined(separator: ", or "))
        }
    }

    /// `25`, `12.5`: a fraction as a percentage.
    static func percent(_ fraction: Double) -> String {
        let value = fraction * 100
        return value == value.rounded() ? String(Int(value)) : String(value)
    }
}

extension ScenarioContext {
    /// Whether every one of `tokens` is downloaded or failed (and no package read
    /// that caused is still under way).
    public func allSettled(_ tokens: [String]) -> Bool {
        let live = collector.live
        return tokens.allSatisfy { [.downloaded, .failed].contains(live.states[$0]) } && !packages.isBusy
    }
}
