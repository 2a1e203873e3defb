extension RateTraceParser {
    /// Bits one mahimahi delivery opportunity carries (one 1500-byte packet).
    static let mahimahiPacketBits: Double = 1500 * 8

    /// Parses a mahimahi packet-delivery trace.
    ///
    /// Each line is a non-negative integer: the millisecond (from trace start) at
    /// which one 1500-byte packet may leave; repeated values are several packets in
    /// that millisecond, and values must not decrease. mm-link replays the file with
    /// the last timestamp `T` as period, so the trace becomes `T` slots of 1 ms at
    /// `packets × 12 kbit` per ms. The packets stamped exactly `T` coincide with
    /// slot 0 of the next pass in mm-link, so they are added to slot 0: every pass
    /// then carries all the file's packets, and the mean rate is
    /// `packets × 12 kbit / T` as in the dataset README. Consecutive slots of equal
    /// rate are merged into one segment.
    func parseMahimahi(name: String, loops: Bool) throws(RateTraceError) -> RateTrace {
        guard let lastLine = lines.last else { throw error(nil, "the file is empty") }
        var collected = RateTraceSegments()
        var slot: UInt64 = 0  // the millisecond being counted
        var count: UInt64 = 0  // packets seen in `slot`
        var slotZero: UInt64 = 0  // packets in slot 0, kept apart until the fold at the end
        let maximumMilliseconds = Self.maximumNanoseconds / 1_000_000

        for line in lines {
            guard let stamp = Self.unsignedInteger(line.text) else {
                throw error(line.number, "expected one non-negative integer (milliseconds), found \"\(line.text.prefix(40))\"")
            }
            guard stamp >= slot else {
                throw error(line.number, "timestamp \(stamp) is before the previous one (\(slot)); mahimahi timestamps must not decrease")
            }
            guard stamp <= maximumMilliseconds else { throw tooLong(line.number) }
            if stamp > slot {
                if slot == 0 {
                    slotZero = count
                } else {
                    guard collected.append(bitsPerSecond: Self.mahimahiRate(count), nanoseconds: 1_000_000) else {
                        throw tooLong(line.number)
                    }
                }
                if stamp > slot + 1 {
                    guard collected.append(bitsPerSecond: 0, nanoseconds: (stamp - slot - 1) * 1_000_000) else {
                        throw tooLong(line.number)
                    }
                }
                slot = stamp
                count = 0
            }
            count += 1
        }
        guard slot > 0 else {
            throw error(lastLine.number, "the last timestamp is 0, so the trace has no duration (mm-link needs a positive period)")
        }
        // `count` packets are stamped T = `slot`: fold them into slot 0 (see above).
        guard collected.prepend(bitsPerSecond: Self.mahimahiRate(slotZero + count), nanoseconds: 1_000_000) else {
            throw tooLong(lastLine.number)
        }
        return try makeTrace(collected, name: name, loops: loops)
    }

    /// The rate of a 1 ms slot carrying `packets` packets, bit/s.
    private static func mahimahiRate(_ packets: UInt64) -> Double {
        Double(packets) * mahimahiPacketBits * 1000
    }
}
