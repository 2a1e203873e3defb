import Foundation

/// The parts of a profile that describe one interface. Every reader is a patch:
/// it changes only the fields the YAML gives and keeps the others, so the same
/// code reads `interfaces:` (patching the default setup) and each phase
/// (patching the setup as it was just before the phase).
extension ProfileReader {
    static let interfaceKeys = ["state", "expensive", "constrained", "latency", "downlink", "uplink", "faults"]
    static let directionKeys = ["rate", "delay", "jitter", "loss", "queue", "discard", "slicing"]
    static let faultKeys = ["reset_after", "reset_per_mb", "close_after", "slow_connect",
                            "reset_after_time", "close_after_time", "close_delay"]
    static let slicingKeys = ["average", "variation", "gap"]
    static let traceKeys = ["trace", "format", "unit", "loops"]
    static let stateExamples = "up, down, or {down: reset | blackhole | refuse}"

    /// Applies an interface mapping (or the shorthand `wifi: down`) to `setup`.
    /// - Returns: the number of fields the YAML gave, so that a phase can refuse an empty change.
    @discardableResult
    func applyInterface(_ value: YAMLValue, to setup: inout InterfaceSetup) throws(ProfileError) -> Int {
        if value.isNull { return 0 }
        if case .scalar = value.node {
            setup.state = try state(value)
            return 1
        }
        let fields = try value.mapping(
            allowed: Self.interfaceKeys,
            expecting: "an interface mapping with state, downlink, uplink, faults…"
        )
        if let v = fields["state"] { setup.state = try state(v) }
        if let v = fields["expensive"] { setup.link.isExpensive = try v.bool() }
        if let v = fields["constrained"] { setup.link.isConstrained = try v.bool() }
        if let v = fields["latency"] {
            for direction in ["downlink", "uplink"] where fields[direction].map(hasDelay) == true {
                throw v.error(.invalidValue, "give either latency (round trip, half each way) or \(direction).delay, not both")
            }
            let rtt = try v.parse(Units.parseDuration, expecting: Units.durationExamples)
            setup.link.downlink.delay = rtt / 2
            setup.link.uplink.delay = rtt / 2
        }
        if let v = fields["downlink"] { try applyDirection(v, .downlink, to: &setup.link.downlink) }
        if let v = fields["uplink"] { try applyDirection(v, .uplink, to: &setup.link.uplink) }
        if let v = fields["faults"] { try applyFaults(v, to: &setup.link.faults) }
        return fields.entries.count
    }

    private func hasDelay(_ direction: YAMLValue) -> Bool {
        guard case .mapping(let mapping) = direction.node else { return false }
        return mapping.keys.contains { $0.string == "delay" }
    }

    /// `up`, `down` (meaning reset), or `{down: reset | blackhole | refuse}`.
    func state(_ value: YAMLValue) throws(ProfileError) -> InterfaceState {
        if case .mapping = value.node {
            let fields = try value.mapping(allowed: ["down"], expecting: Self.stateExamples) { key in
                "unknown key '\(key)' in a state; expected \(Self.stateExamples)"
            }
            let mode = try fields.required("down", expecting: "a down mode: reset, blackhole or refuse")
            let text = try mode.scalar(expecting: "a down mode: reset, blackhole or refuse")
            guard let downMode = DownMode(rawValue: text) else {
                throw mode.error(.invalidValue, "unknown down mode '\(text)'; expected reset, blackhole or refuse")
            }
            return .down(downMode)
        }
        let text = try value.scalar(expecting: Self.stateExamples)
        switch text {
        case "up": return .up
        case "down": return .down(.reset)
        default:
            if DownMode(rawValue: text) != nil {
                throw value.error(.invalidValue, "'\(text)' is a down mode; write {down: \(text)}")
            }
            throw value.error(.invalidValue, "unknown state '\(text)'; expected \(Self.stateExamples)")
        }
    }

    /// Patches one direction: rate, delay, jitter, loss, queue, discard, slicing.
    func applyDirection(
        _ value: YAMLValue, _ direction: Direction, to parameters: inout LinkDirectionParameters
    ) throws(ProfileError) {
        let fields = try value.mapping(
            allowed: Self.directionKeys, expecting: "a link mapping like {rate: 780kbit/s, delay: 100ms}"
        )
        if let v = fields["rate"] { parameters.rate = try rate(v, direction) }
        if let v = fields["delay"] { parameters.delay = try v.parse(Units.parseDuration, expecting: Units.durationExamples) }
        if let v = fields["jitter"] { parameters.jitter = try v.parse(Units.parseDuration, expecting: Units.durationExamples) }
        if let v = fields["loss"] { parameters.loss = try loss(v) }
        if let v = fields["queue"] {
            parameters.queueLimitBytes = try optional(v) { v throws(ProfileError) in
                let bytes = try v.parse(Units.parseSize, expecting: Units.sizeExamples)
                guard bytes > 0 else { throw v.error(.invalidValue, "a queue must hold at least one byte; expected \(Units.sizeExamples)") }
                return bytes
            }
        }
        if let v = fields["discard"] { parameters.discards = try v.bool() }
        if let v = fields["slicing"] {
            parameters.slicing = try optional(v) { v throws(ProfileError) in try slicing(v) }
        }
    }

    /// `{average: 100, variation: 20, gap: 1ms}`: sizes in bytes (`variation` and `gap`
    /// default to 0), checked by `Slicing.validationError`.
    func slicing(_ value: YAMLValue) throws(ProfileError) -> LinkDirectionParameters.Slicing {
        let examples = "a slicing like {average: 100, variation: 20, gap: 1ms}"
        let fields = try value.mapping(allowed: Self.slicingKeys, expecting: examples)
        let average = try fields.required("average", expecting: "the average slice size, e.g. 100 or 1KiB")
            .parse(Units.parseSize, expecting: Units.sizeExamples)
        let variation = try fields["variation"]?.parse(Units.parseSize, expecting: Units.sizeExamples) ?? 0
        let gap = try fields["gap"]?.parse(Units.parseDuration, expecting: Units.durationExamples) ?? .zero
        let slicing = LinkDirectionParameters.Slicing(averageBytes: average, variationBytes: variation, gap: gap)
        if let problem = slicing.validationError { throw value.error(.invalidValue, "\(problem); expected \(examples)") }
        return slicing
    }

    /// A constant rate, `unlimited`, or `{trace: FILE, format:, unit:, loops:}`.
    func rate(_ value: YAMLValue, _ direction: Direction) throws(ProfileError) -> RateSpec {
        guard case .mapping = value.node else {
            return try value.parse(Units.parseRate, expecting: Units.rateExamples)
        }
        let fields = try value.mapping(allowed: Self.traceKeys, expecting: "{trace: FILE, format: mahimahi}")
        let file = try fields.required("trace", expecting: "the path of a trace file")
        let path = try file.scalar(expecting: "the path of a trace file")
        var format: RateTraceFormat?
        if let v = fields["format"] {
            let text = try v.scalar(expecting: "a trace format")
            format = RateTraceFormat(rawValue: text.lowercased())
            if format == nil {
                let known = RateTraceFormat.allCases.map(\.rawValue).joined(separator: ", ")
                throw v.error(.invalidValue, "unknown trace format '\(text)'; expected one of \(known)")
            }
        }
        var unit = RateTraceUnit.kbitPerSecond
        if let v = fields["unit"] {
            let text = try v.scalar(expecting: "a rate unit")
            guard let known = RateTraceUnit.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
                let units = RateTraceUnit.allCases.map(\.rawValue).joined(separator: ", ")
                throw v.error(.invalidValue, "unknown trace unit '\(text)'; expected one of \(units)")
            }
            unit = known
        }
        let loops = try fields["loops"]?.bool() ?? true
        let resolved = resolve(path)
        do {
            return .trace(try RateTrace.load(contentsOf: resolved, format: format, unit: unit, direction: direction, loops: loops))
        } catch {
            var failure = file.error(.traceFailed, "cannot load the trace: \(error.description)")
            failure.traceError = error
            throw failure
        }
    }

    /// `1%`, `0.01`, `none`, `{bernoulli: 1%}` or `{gilbert_elliott: {p:, r:, good:, bad:}}`.
    func loss(_ value: YAMLValue) throws(ProfileError) -> LossModel {
        let examples = "a loss like 1%, 0.01, none or {gilbert_elliott: {p: 0.01, r: 0.3, good: 0, bad: 0.5}}"
        guard case .mapping = value.node else {
            if (try? value.scalar(expecting: examples)) == "none" { return .none }
            let p = try value.parse(Units.parseProbability, expecting: examples)
            return p == 0 ? .none : .bernoulli(probability: p)
        }
        let fields = try value.mapping(allowed: ["bernoulli", "gilbert_elliott"], expecting: examples)
        guard fields.entries.count == 1, let (key, model) = fields.entries.first else {
            throw value.error(.invalidValue, "give exactly one loss model; expected \(examples)")
        }
        if key == "bernoulli" {
            let p = try model.parse(Units.parseProbability, expecting: Units.probabilityExamples)
            return p == 0 ? .none : .bernoulli(probability: p)
        }
        let ge = try model.mapping(allowed: ["p", "r", "good", "bad"], expecting: "{p: good→bad, r: bad→good, good: loss, bad: loss}")
        let p = try ge.required("p", expecting: "the good→bad transition probability")
            .parse(Units.parseProbability, expecting: Units.probabilityExamples)
        let r = try ge.required("r", expecting: "the bad→good transition probability")
            .parse(Units.parseProbability, expecting: Units.probabilityExamples)
        let good = try ge["good"]?.parse(Units.parseProbability, expecting: Units.probabilityExamples) ?? 0
        let bad = try ge["bad"]?.parse(Units.parseProbability, expecting: Units.probabilityExamples) ?? 1
        return .gilbertElliott(goodToBad: p, badToGood: r, lossInGood: good, lossInBad: bad)
    }

    /// Patches connection faults; `none` (or null) clears a fault.
    func applyFaults(_ value: YAMLValue, to faults: inout ConnectionFaults) throws(ProfileError) {
        let fields = try value.mapping(allowed: Self.faultKeys, expecting: "a faults mapping like {reset_after: 5MB}")
        if let v = fields["reset_after"] {
            faults.resetAfterBytes = try optional(v) { v throws(ProfileError) in try v.parse(Units.parseSize, expecting: Units.sizeExamples) }
        }
        if let v = fields["reset_per_mb"] {
            faults.resetProbabilityPerMB = try optional(v) { v throws(ProfileError) in
                try v.parse(Units.parseProbability, expecting: Units.probabilityExamples)
            } ?? 0
        }
        if let v = fields["close_after"] {
            faults.closeAfterBytes = try optional(v) { v throws(ProfileError) in try v.parse(Units.parseSize, expecting: Units.sizeExamples) }
        }
        if let v = fields["slow_connect"] { faults.slowConnectExtra = try optionalDuration(v) }
        if let v = fields["reset_after_time"] { faults.resetAfterTime = try optionalDuration(v) }
        if let v = fields["close_after_time"] { faults.closeAfterTime = try optionalDuration(v) }
        if let v = fields["close_delay"] { faults.closeDelay = try optionalDuration(v) }
    }

    /// A duration, or nil for `none` or null.
    private func optionalDuration(_ value: YAMLValue) throws(ProfileError) -> Duration? {
        try optional(value) { v throws(ProfileError) in try v.parse(Units.parseDuration, expecting: Units.durationExamples) }
    }

    /// `immediate`, `withheld`, or `{delay: 2s}`.
    func pathUpdatePolicy(_ value: YAMLValue) throws(ProfileError) -> PathUpdatePolicy {
        let examples = "immediate, withheld or {delay: 2s}"
        if case .mapping = value.node {
            let fields = try value.mapping(allowed: ["delay"], expecting: examples)
            let delay = try fields.required("delay", expecting: Units.durationExamples)
            return .delayed(try delay.parse(Units.parseDuration, expecting: Units.durationExamples))
        }
        let text = try value.scalar(expecting: examples)
        switch text {
        case "immediate": return .immediate
        case "withheld": return .withheld
        default: throw value.error(.invalidValue, "unknown path update policy '\(text)'; expected \(examples)")
        }
    }

    /// nil for `none` or null, else what `read` returns.
    private func optional<T>(
        _ value: YAMLValue, _ read: (YAMLValue) throws(ProfileError) -> T
    ) throws(ProfileError) -> T? {
        if value.isNull { return nil }
        if case .scalar(let scalar) = value.node, scalar.string == "none" { return nil }
        return try read(value)
    }

    /// A trace path relative to the profile's folder (or the working directory).
    func resolve(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let base = source.baseDirectory, !base.isEmpty else { return path }
        return URL(fileURLWithPath: base).appendingPathComponent(path).standardized.path
    }
}
