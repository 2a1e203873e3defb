/// A link rate that varies over time, as measured on a real network.
///
/// Every supported trace format (mahimahi, Norway HSDPA, G-NetTrack, plain CSV)
/// loads into this one model: consecutive segments of constant rate. Offsets are
/// nanoseconds since the trace was switched in. A looping trace repeats with its
/// total duration as period; a non-looping one holds its last rate after its end.
public struct RateTrace: Equatable, Sendable {
    /// One stretch of constant rate.
    public struct Segment: Equatable, Sendable {
        public var durationNanoseconds: UInt64
        public var bitsPerSecond: Double

        public init(durationNanoseconds: UInt64, bitsPerSecond: Double) {
            self.durationNanoseconds = durationNanoseconds
            self.bitsPerSecond = bitsPerSecond
        }
    }

    /// Where the trace came from (file name), for events and errors.
    public var name: String
    public private(set) var segments: [Segment]
    public var loops: Bool

    /// Segment start offsets (ns), with the period as last element.
    private var starts: [UInt64]
    /// Cumulative bytes deliverable at each segment start, with the per-period total last.
    private var cumulativeBytes: [Double]

    /// Creates a trace; empty segments and zero-length segments are dropped.
    /// - Precondition: at least one segment with a positive duration.
    public init(name: String, segments: [Segment], loops: Bool = true) {
        let kept = segments.filter { $0.durationNanoseconds > 0 }
        precondition(!kept.isEmpty, "a rate trace needs at least one segment with a duration")
        self.name = name
        self.segments = kept
        self.loops = loops
        var starts: [UInt64] = [0]
        var cumulative: [Double] = [0]
        starts.reserveCapacity(kept.count + 1)
        cumulative.reserveCapacity(kept.count + 1)
        for segment in kept {
            starts.append(starts.last! + segment.durationNanoseconds)
            cumulative.append(cumulative.last! + Self.bytes(segment.bitsPerSecond, segment.durationNanoseconds))
        }
        self.starts = starts
        self.cumulativeBytes = cumulative
    }

    public static func == (lhs: RateTrace, rhs: RateTrace) -> Bool {
        lhs.name == rhs.name && lhs.loops == rhs.loops && lhs.segments == rhs.segments
    }

    /// Total duration of one pass through the trace.
    public var periodNanoseconds: UInt64 { starts.last! }

    /// Bytes one pass delivers.
    public var bytesPerPeriod: Double { cumulativeBytes.last! }

    /// Time-weighted mean rate of one pass, bit/s.
    public var meanBitsPerSecond: Double {
        bytesPerPeriod * 8 / (Double(periodNanoseconds) / 1e9)
    }

    /// The rate in force at offset `t`.
    public func bitsPerSecond(at t: UInt64) -> Double {
        let (_, index, _) = locate(t)
        return segments[index].bitsPerSecond
    }

    /// Bytes the link can deliver between offsets `from` and `to`.
    public func deliverableBytes(from: UInt64, to: UInt64) -> Double {
        guard to > from else { return 0 }
        return cumulative(at: to) - cumulative(at: from)
    }

    /// The first offset at which `bytes` more bytes have been delivered when
    /// sending starts at offset `start`; nil if the trace never delivers them.
    public func finishTime(start: UInt64, bytes: Double) -> UInt64? {
        if bytes <= 0 { return start }
        let target = cumulative(at: start) + bytes
        // Rounding in the cumulative sums must never move the answer before `start`.
        return offset(whereCumulativeReaches: target).map { max($0, start) }
    }

    // MARK: - Cumulative capacity

    private static func bytes(_ bps: Double, _ ns: UInt64) -> Double {
        bps / 8 * Double(ns) / 1e9
    }

    /// (pass number, segment index, offset inside the segment)
    private func locate(_ t: UInt64) -> (UInt64, Int, UInt64) {
        let period = periodNanoseconds
        var pass: UInt64 = 0
        var local = t
        if t >= period {
            if loops {
                pass = t / period
                local = t % period
            } else {
                let last = segments.count - 1
                return (0, last, t - starts[last])
            }
        }
        // Binary search for the last start <= local.
        var lo = 0, hi = segments.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= local { lo = mid } else { hi = mid - 1 }
        }
        return (pass, lo, local - starts[lo])
    }

    private func cumulative(at t: UInt64) -> Double {
        let (pass, index, inside) = locate(t)
        return Double(pass) * bytesPerPeriod + cumulativeBytes[index]
            + Self.bytes(segments[index].bitsPerSecond, inside)
    }

    /// The earliest offset at which the cumulative capacity reaches `target`, or nil
    /// if it never does (or only beyond what a UInt64 of nanoseconds can hold).
    ///
    /// A target that is reached exactly at the end of a segment resolves to that
    /// end, not to the start of the next delivering segment: a transfer that
    /// completes as a segment ends must not wait out a zero-rate gap after it.
    private func offset(whereCumulativeReaches target: Double) -> UInt64? {
        guard target.isFinite else { return nil }
        let perPeriod = bytesPerPeriod
        let period = periodNanoseconds
        var remaining = target
        var base: UInt64 = 0
        if remaining > perPeriod {
            if loops {
                guard perPeriod > 0 else { return nil }
                // Whole passes before the one that completes; keep `remaining` in (0, perPeriod].
                var passes = (remaining / perPeriod).rounded(.up) - 1
                remaining -= passes * perPeriod
                if remaining <= 0 {
                    passes -= 1
                    remaining += perPeriod
                } else if remaining > perPeriod {
                    passes += 1
                    remaining -= perPeriod
                }
                guard passes >= 0, passes * Double(period) < 0x1p63 else { return nil }
                base = UInt64(passes) * period
            } else {
                let last = segments[segments.count - 1]
                guard last.bitsPerSecond > 0 else { return nil }
                let beyond = ((remaining - perPeriod) * 8 / last.bitsPerSecond * 1e9).rounded(.up)
                guard beyond < 0x1p63 else { return nil }
                let (sum, overflow) = period.addingReportingOverflow(UInt64(beyond))
                return overflow ? nil : sum
            }
        }
        guard remaining > 0 else { return base }
        // First boundary j whose cumulative value reaches `remaining`; segment j - 1 delivers
        // (its start value is strictly below `remaining`), so zero-rate segments are skipped.
        var lo = 1, hi = segments.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if cumulativeBytes[mid] >= remaining { hi = mid } else { lo = mid + 1 }
        }
        let index = lo - 1
        let segment = segments[index]
        let need = remaining - cumulativeBytes[index]
        let exact = need * 8 / segment.bitsPerSecond * 1e9
        let inside = exact < Double(segment.durationNanoseconds)
            ? min(UInt64(exact.rounded(.up)), segment.durationNanoseconds)
            : segment.durationNanoseconds
        let (sum, overflow) = base.addingReportingOverflow(starts[index] + inside)
        return overflow ? nil : sum
    }
}
