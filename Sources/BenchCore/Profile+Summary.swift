/// Human-readable renderings of a profile, for `bench profile check` and reports.
/// Units are printed the way profiles write them.
extension Profile {
    /// The setup of every interface just before phase `index` (all phases before it applied).
    /// `setups(before: timeline.count)` is the setup at the end of the run.
    public func setups(before index: Int) -> [InterfaceKind: InterfaceSetup] {
        var current = initial
        for phase in timeline.prefix(index) {
            current.merge(phase.changes) { _, new in new }
        }
        return current
    }

    /// The first line of the description, shortened to `limit` characters to fit a
    /// terminal line (`bench profiles` prints one per profile).
    public func oneLineDescription(limit: Int = 90) -> String {
        let first = description.split(separator: "\n").first.map(String.init) ?? ""
        return first.count <= limit ? first : String(first.prefix(limit - 1)) + "…"
    }

    /// A multi-line summary: name, duration, each interface at the start, then every
    /// phase with its offset, label and what it changes, then every origin fault window.
    public var summary: String {
        var lines: [String] = []
        lines.append("\(name): \(Units.format(duration)), seed \(seed), path updates \(pathUpdates.summary)")
        if !description.isEmpty {
            lines.append("  " + description.split(separator: "\n").joined(separator: " "))
        }
        lines.append("interfaces at 0s:")
        for kind in InterfaceKind.allCases {
            lines.append("  \(kind.rawValue.padding(8)) \(initial[kind]!.summary)")
        }
        lines.append("timeline: \(timeline.count) phase\(timeline.count == 1 ? "" : "s")")
        let offsets = timeline.map { Units.format($0.at) }
        let width = offsets.map(\.count).max() ?? 0
        for (index, phase) in timeline.enumerated() {
            let before = setups(before: index)
            var parts: [String] = []
            for kind in InterfaceKind.allCases {
                guard let new = phase.changes[kind] else { continue }
                let changes = new.changes(from: before[kind]!)
                parts.append("\(kind): " + (changes.isEmpty ? "unchanged" : changes.joined(separator: ", ")))
            }
            if let policy = phase.pathUpdate { parts.append("path update \(policy.summary)") }
            let label = phase.label.map { "[\($0)] " } ?? ""
            lines.append("  \(offsets[index].padding(width))  \(label)\(parts.joined(separator: "; "))")
        }
        if !origin.isEmpty {
            lines.append("origin faults: \(origin.count)")
            for window in origin {
                let label = window.label.map { "[\($0)] " } ?? ""
                lines.append("  \(Units.format(window.at))–\(Units.format(window.end))  \(label)\(window.summary)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension PathUpdatePolicy {
    /// `immediate`, `delayed 2s` or `withheld`.
    public var summary: String {
        switch self {
        case .immediate: "immediate"
        case .delayed(let delay): "delayed \(Units.format(delay))"
        case .withheld: "withheld"
        }
    }
}

extension InterfaceSetup {
    /// One line: state and flags, then each direction and the faults.
    public var summary: String {
        var flags = [state.description]
        if link.isExpensive { flags.append("expensive") }
        if link.isConstrained { flags.append("constrained") }
        var text = flags.joined(separator: ", ")
        text += " | downlink \(link.downlink.summary) | uplink \(link.uplink.summary)"
        if link.faults != .none { text += " | faults: \(link.faults.summary)" }
        return text
    }

    /// What differs from `old`, as short phrases (`down(blackhole)`, `downlink rate 1Mbit/s`).
    public func changes(from old: InterfaceSetup) -> [String] {
        var changes: [String] = []
        if state != old.state { changes.append(state.description) }
        if link.isExpensive != old.link.isExpensive { changes.append(link.isExpensive ? "expensive" : "not expensive") }
        if link.isConstrained != old.link.isConstrained {
            changes.append(link.isConstrained ? "constrained" : "not constrained")
        }
        for direction in Direction.allCases {
            let new = link[direction], was = old.link[direction], name = direction.rawValue
            if new.rate != was.rate { changes.append("\(name) rate \(Units.format(new.rate))") }
            if new.delay != was.delay { changes.append("\(name) delay \(Units.format(new.delay))") }
            if new.jitter != was.jitter { changes.append("\(name) jitter \(Units.format(new.jitter))") }
            if new.loss != was.loss { changes.append("\(name) \(new.loss.summary)") }
            if new.queueLimitBytes != was.queueLimitBytes {
                changes.append("\(name) queue \(new.queueLimitBytes.map { Units.format(bytes: $0) } ?? "default")")
            }
            if new.discards != was.discards { changes.append(new.discards ? "\(name) discards" : "\(name) delivers") }
            if new.slicing != was.slicing { changes.append("\(name) \(new.slicing?.summary ?? "no slicing")") }
        }
        if link.faults != old.link.faults { changes.append("faults \(link.faults.summary)") }
        return changes
    }
}

extension LinkDirectionParameters {
    /// `780kbit/s, 100ms ±10ms, loss 1%, queue 256KiB, slices 100B ±20B every 1ms, discards`,
    /// or `unshaped`.
    public var summary: String {
        if isTransparent && queueLimitBytes == nil && !discards { return "unshaped" }
        var parts = [Units.format(rate)]
        if delay != .zero || jitter != .zero {
            parts.append(Units.format(delay) + (jitter == .zero ? "" : " ±\(Units.format(jitter))"))
        }
        if loss != .none { parts.append(loss.summary) }
        if let queueLimitBytes { parts.append("queue \(Units.format(bytes: queueLimitBytes))") }
        if let slicing { parts.append(slicing.summary) }
        if discards { parts.append("discards") }
        return parts.joined(separator: ", ")
    }
}

extension LinkDirectionParameters.Slicing {
    /// `slices 100B ±20B every 1ms`.
    public var summary: String {
        "slices \(averageBytes)B" + (variationBytes == 0 ? "" : " ±\(variationBytes)B")
            + (gap == .zero ? "" : " every \(Units.format(gap))")
    }
}

extension LossModel {
    /// `no loss`, `loss 1%`, or `bursty loss p=1% r=30% good 0% bad 50% (mean 3.2%)`.
    public var summary: String {
        switch self {
        case .none: "no loss"
        case .bernoulli(let p): "loss \(Units.format(probability: p))"
        case let .gilbertElliott(p, r, good, bad):
            "bursty loss p=\(Units.format(probability: p)) r=\(Units.format(probability: r)) "
                + "good \(Units.format(probability: good)) bad \(Units.format(probability: bad)) "
                + "(mean \(Units.format(probability: meanLossRate)))"
        }
    }
}

extension ConnectionFaults {
    /// `reset after 5MB, reset 1%/MB, close after 10MB, slow connect +300ms, reset after 2s open,
    /// close after 5s open, close delay 1s`, or `none`.
    public var summary: String {
        var parts: [String] = []
        if let resetAfterBytes { parts.append("reset after \(Units.format(bytes: resetAfterBytes))") }
        if resetProbabilityPerMB > 0 { parts.append("reset \(Units.format(probability: resetProbabilityPerMB))/MB") }
        if let closeAfterBytes { parts.append("close after \(Units.format(bytes: closeAfterBytes))") }
        if let slowConnectExtra { parts.append("slow connect +\(Units.format(slowConnectExtra))") }
        if let resetAfterTime { parts.append("reset after \(Units.format(resetAfterTime)) open") }
        if let closeAfterTime { parts.append("close after \(Units.format(closeAfterTime)) open") }
        if let closeDelay { parts.append("close delay \(Units.format(closeDelay))") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}

extension String {
    /// The string padded with spaces to at least `width` characters.
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
