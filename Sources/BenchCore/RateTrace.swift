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
        return offset(whereCumulativeReaches: target)
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

    private func offset(whereCumulativeReaches target: Double) -> UInt64? {
        let perPeriod = bytesPerPeriod
        var pass: UInt64 = 0
        var remaining = target
        if remaining >= perPeriod {
            if loops {
                guard perPeriod > 0 else { return nil }
                let passes = (remaining / perPeriod).rounded(.down)
                pass = UInt64(passes)
                remaining -= passes * perPeriod
            } else {
                let last = segments[segments.count - 1]
                guard last.bitsPerSecond > 0 else { return nil }
                let beyond = (remaining - perPeriod) * 8 / last.bitsPerSecond * 1e9
                return periodNanoseconds + UInt64(beyond.rounded(.up))
            }
        }
        // Last segment index whose cumulative start is <= remaining (skipping zero-rate ones).
        var lo = 0, hi = segments.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if cumulativeBytes[mid] <= remaining { lo = mid } else { hi = mid - 1 }
        }
        // Zero-rate segments share the cumulative value of the next one: move to a segment that delivers.
        while segments[lo].bitsPerSecond <= 0 || cumulativeBytes[lo + 1] <= remaining {
            if lo + 1 >= segments.count { return nil }
            lo += 1
        }
        let need = remaining - cumulativeBytes[lo]
        let inside = UInt64((need * 8 / segments[lo].bitsPerSecond * 1e9).rounded(.up))
        return pass * periodNanoseconds + starts[lo] + min(inside, segments[lo].durationNanoseconds)
    }
}
