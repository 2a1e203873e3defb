import AppProtocol
import BenchCore

/// The kinds of event a chaos scenario plays between its requests and its end.
enum ChaosEvent: CaseIterable {
    case outage, handoff, crash, relaunchThatFails, background, pause, cancel, cellularSetting, originFault, request
}

extension ChaosPlan {
    /// Event `index` of `count`: a random kind among those still possible, written
    /// after a note that names it.
    mutating func event(_ index: Int, of count: Int) {
        var choices: [(ChaosEvent, Int)] = [(.outage, 4), (.handoff, 2), (.pause, 2), (.originFault, 2), (.cellularSetting, 1)]
        if crashes < 2 { choices.append((.crash, 3)) }
        if relaunchesThatFail < 1, !pool.isEmpty { choices.append((.relaunchThatFails, 2)) }
        if backgrounds < 2 { choices.append((.background, 2)) }
        if cancels < 1, live.count > 1 { choices.append((.cancel, 1)) }
        if !pool.isEmpty { choices.append((.request, 1)) }
        let noteAt = steps.count
        let description: String
        switch rng.weighted(choices) {
        case .outage: description = outage()
        case .handoff: description = handoff()
        case .crash: description = crash()
        case .relaunchThatFails: description = relaunchThatFails()
        case .background: description = background()
        case .pause: description = pause()
        case .cancel: description = cancel()
        case .cellularSetting: description = cellularSetting()
        case .originFault: description = originFault()
        case .request: description = "\(request() ?? "nothing") requested"
        }
        steps.insert(.note("chaos \(index)/\(count): \(description)"), at: noteAt)
        descriptions.append(description)
    }

    /// WiFi (and, half the time, cellular with it) goes down in a random mode, for a
    /// short while or long enough to suspend, the app told at once, late or never; then
    /// it returns (the app told at once, or a little late).
    private mutating func outage() -> String {
        if let name = target() { moment(name) }
        let mode = rng.pick(DownMode.allCases)
        let update: ScenarioPathUpdate = switch rng.below(4) {
        case 0, 1: mode == .blackhole ? .withheld : .published
        case 2: .late(rng.duration(0.5...2))
        default: .published
        }
        var length = rng.chance(0.5) ? rng.duration(5...8) : rng.duration(0.5...2)
        if case .late(let delay) = update, length < delay + .seconds(1) { length = delay + .seconds(1) }
        let everything = cellularBase && rng.chance(0.5)
        steps.append(.down(.wifi, mode: mode, pathUpdate: update))
        if everything { steps.append(.down(.cellular, mode: mode)) }
        steps.append(.hold(length))
        if everything { steps.append(.up(.cellular)) }
        let back: ScenarioPathUpdate = rng.chance(0.2) ? .late(rng.duration(0.5...1.5)) : .published
        steps += [.up(.wifi, pathUpdate: back), .waitForPath(baseInterfaces, timeout: .seconds(15))]
        advance(by: length)
        return "\(everything ? "WiFi and cellular" : "WiFi") down (\(mode.rawValue)) for \(Units.format(length)), "
            + "path \(Self.describe(update))"
    }

    /// WiFi goes down with cellular up (brought up for the handoff when it is not),
    /// for a few seconds, then comes back.
    private mutating func handoff() -> String {
        if let name = target() { moment(name) }
        if !cellularBase { steps += [.up(.cellular), .waitForPath([.wifi, .cellular])] }
        let mode = rng.pick(DownMode.allCases)
        let length = rng.duration(3...7)
        steps += [.down(.wifi, mode: mode), .hold(length), .up(.wifi)]
        if !cellularBase { steps.append(.down(.cellular)) }
        steps.append(.waitForPath(baseInterfaces, timeout: .seconds(15)))
        advance(by: length)
        return "handoff: WiFi down (\(mode.rawValue)) for \(Units.format(length)) with cellular up"
    }

    /// A crash or a kill for memory, while the origin is sending a media response.
    private mutating func crash() -> String {
        let kind: RelaunchKind = rng.chance(0.6) ? .crash : .memoryPressure
        if let name = freshTarget() {
            steps.append(.wait(ScenarioWait(
                until: .any([.segments(name, atLeast: rng.int(in: 1...4)), .state(name, Self.settledOrGone)]),
                label: "\(name) under way", timeout: .seconds(8), optional: true)))
        }
        steps += [.waitForMediaResponse(timeout: .seconds(5)), .kill(kind)]
        settingAgainAfterTheRelaunch()
        crashes += 1
        advance(by: .seconds(2))
        return "kill (\(kind.rawValue)) with bytes in flight"
    }

    /// A force-quit, or a reboot while the app is in the background, during a fresh
    /// download: once every earlier download has settled, since those an earlier crash
    /// interrupted must complete, and a force-quit fails whatever is in flight.
    private mutating func relaunchThatFails() -> String {
        let kind: RelaunchKind = rng.chance(0.5) ? .userForceQuit : .rebootWhileSuspended
        settleEverything(timeout: .seconds(90))
        guard let fresh = request() else { return "nothing to interrupt" }
        let fraction = Double(rng.int(in: 1...4)) / 10
        steps.append(.wait(ScenarioWait(
            until: .any([.progress(fresh, .atLeast(fraction)), .state(fresh, Self.settledOrGone)]),
            label: "\(fresh) at \(Int(fraction * 100)) %", timeout: .seconds(10), optional: true)))
        if kind == .rebootWhileSuspended {
            steps += [.prepareForBackground, .background, .kill(kind, inForeground: true)]
        } else {
            steps.append(.kill(kind))
        }
        settingAgainAfterTheRelaunch()
        relaunchesThatFail += 1
        if let index = downloads.lastIndex(where: { $0.name == fresh }) {
            downloads[index].interrupted = true
            downloads[index].end = clock
        }
        advance(by: .seconds(3))
        return "\(kind == .userForceQuit ? "force-quit" : "reboot while in the background") during \(fresh)"
    }

    /// `prepareForBackground`, the background for a few seconds, the foreground; often
    /// right after a protected download was requested, so its license is still due.
    private mutating func background() -> String {
        var licensed = ""
        if rng.chance(0.6), let video = pool.first(where: protected.contains),
            let index = pool.firstIndex(of: video)
        {
            pool.swapAt(0, index)
            licensed = " just after \(request() ?? video) was requested"
        } else if let name = target() {
            moment(name)
        }
        let length = rng.duration(1...3)
        steps += [.prepareForBackground, .background, .hold(length), .foreground]
        backgrounds += 1
        advance(by: length)
        return "background for \(Units.format(length))\(licensed)"
    }

    /// The user pauses a download, then resumes it (each only while it is in flight).
    private mutating func pause() -> String {
        guard let name = target() else { return "nothing to pause" }
        moment(name)
        let length = rng.duration(1...4)
        steps += [.userIfInFlight(.pause, download: name), .hold(length), .userIfInFlight(.resume, download: name)]
        advance(by: length)
        return "\(name) paused for \(Units.format(length))"
    }

    /// The user cancels a download while it is in flight; later events leave it alone.
    private mutating func cancel() -> String {
        guard let index = downloads.lastIndex(where: { !$0.removed }) else { return "nothing to cancel" }
        let name = downloads[index].name
        moment(name)
        steps.append(.userIfInFlight(.cancel, download: name))
        downloads[index].removed = true
        cancels += 1
        return "\(name) cancelled"
    }

    /// The user changes the cellular setting; often a download follows that takes it.
    private mutating func cellularSetting() -> String {
        let allowed = rng.chance(0.5)
        setAllowsCellular(allowed)
        let fresh = rng.chance(0.6) ? request() : nil
        return "cellular \(allowed ? "allowed" : "not allowed") from now on" + (fresh.map { ", then \($0) requested" } ?? "")
    }

    /// The origin answers media segments wrong for a few seconds: an error status or a
    /// truncated body (at most 3 requests: an engine retries such failures 5 times), a
    /// short stall or a slow first byte.
    private mutating func originFault() -> String {
        if let name = target() { moment(name) }
        let fault: OriginFault
        var count: Int? = rng.int(in: 1...3)
        var probability = 1.0
        switch rng.below(5) {
        case 0: fault = .status(code: 503, retryAfter: rng.chance(0.5) ? .seconds(1) : nil)
        case 1: fault = .status(code: 500, retryAfter: nil)
        case 2: fault = .truncate(afterBytes: 1000 * rng.int(in: 1...20))
        case 3: fault = .stall(afterBytes: 1024 * rng.int(in: 0...8), duration: rng.duration(0.5...2.5))
        default:
            fault = .slowFirstByte(rng.duration(0.3...1.5))
            (count, probability) = (nil, 0.5)
        }
        let window = ScenarioOriginFault(
            fault, path: ScenarioOriginFault.segments, duration: rng.duration(2...5), count: count, probability: probability)
        steps += [.originFault(window), .hold(.seconds(1))]
        advance(by: .seconds(1))
        return "origin fault: \(window.summary)"
    }

    private static func describe(_ update: ScenarioPathUpdate) -> String {
        switch update {
        case .published: "update published"
        case .withheld: "update withheld"
        case .late(let delay): "update \(Units.format(delay)) late"
        }
    }
}
