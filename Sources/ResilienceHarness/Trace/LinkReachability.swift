import BenchCore

/// When an interface, though up, delivers nothing: its link loses every packet, or has
/// no rate (a constant 0, or a stretch of a rate trace at 0). The conditioner keeps
/// such an interface up and in the path (Apple's "100% Loss" preset), so interface
/// events alone would count it as usable.
///
/// A value made by the runner from the links it gave the conditioner and the timeline
/// phases the conditioner applied (`phaseApplied` events), and read by properties that
/// ask whether the app could have moved bytes (`liveness`).
public struct LinkReachability: Sendable, Hashable {
    /// Per interface, the spans during which its link delivers nothing.
    public var spans: [InterfaceKind: [TraceInterval]]

    /// Reachability with the given dead spans (none by default: every link delivers).
    public init(spans: [InterfaceKind: [TraceInterval]] = [:]) {
        self.spans = spans
    }

    /// Whether `kind`'s link delivers at `t` (being up is another question).
    public func isReachable(_ kind: InterfaceKind, at t: UInt64) -> Bool {
        !(spans[kind] ?? []).contains { $0.contains(t) }
    }

    /// A link that can never deliver a byte: total loss or a constant rate of 0, in
    /// either direction (a request that cannot leave is as dead as an answer that
    /// cannot arrive).
    public static func isDead(_ link: InterfaceLink) -> Bool {
        [link.downlink, link.uplink].contains { direction in
            direction.loss.meanLossRate >= 1 || direction.rate == .constant(bitsPerSecond: 0)
        }
    }

    /// The dead spans of links that start as `initial` at trace time `start` and change
    /// as `phases` say (each at its trace time, giving the new link of the interfaces it
    /// changes), up to `end`. A rate trace's stretches at 0 of at least `minimum` count
    /// as dead, its offsets taken from when the link was set.
    public static func from(
        initial: [InterfaceKind: InterfaceLink], start: UInt64, phases: [(t: UInt64, links: [InterfaceKind: InterfaceLink])],
        end: UInt64, minimum: Duration = .seconds(1)
    ) -> LinkReachability {
        var result: [InterfaceKind: [TraceInterval]] = [:]
        for (kind, first) in initial {
            var settings = [(t: start, link: first)]
            for phase in phases.sorted(by: { $0.t < $1.t }) {
                if let link = phase.links[kind], link != settings[settings.count - 1].link { settings.append((phase.t, link)) }
            }
            for (index, setting) in settings.enumerated() {
                let until = index + 1 < settings.count ? settings[index + 1].t : end
                guard until > setting.t else { continue }
                result[kind, default: []] += deadSpans(setting.link, from: setting.t, until: until, minimum: minimum)
            }
        }
        return LinkReachability(spans: result.filter { !$0.value.isEmpty })
    }

    private static func deadSpans(_ link: InterfaceLink, from: UInt64, until: UInt64, minimum: Duration) -> [TraceInterval] {
        if isDead(link) {
            return [TraceInterval(start: from, end: until, startCause: "link delivers nothing", endCause: "link changed")]
        }
        var spans: [TraceInterval] = []
        for direction in [link.downlink, link.uplink] {
            guard case .trace(let rates) = direction.rate else { continue }
            var offset: UInt64 = 0
            var pass = 0
            while from.plus(offset) < until, pass < 10_000 {
                for segment in rates.segments {
                    let start = from.plus(offset)
                    offset = offset.plus(segment.durationNanoseconds)
                    guard start < until else { break }
                    if segment.bitsPerSecond <= 0, segment.durationNanoseconds >= minimum.nanoseconds {
                        spans.append(TraceInterval(
                            start: start, end: min(until, from.plus(offset)),
                            startCause: "rate trace \(rates.name) at 0", endCause: nil))
                    }
                }
                pass += 1
                if !rates.loops {
                    // Past its end a trace that does not loop keeps its last rate.
                    let last = from.plus(offset)
                    if let final = rates.segments.last, final.bitsPerSecond <= 0, last < until {
                        spans.append(TraceInterval(
                            start: last, end: until, startCause: "rate trace \(rates.name) ended at 0", endCause: nil))
                    }
                    break
                }
            }
        }
        return spans
    }
}
