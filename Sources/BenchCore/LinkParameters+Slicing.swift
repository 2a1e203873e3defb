extension LinkDirectionParameters {
    /// How a direction's bytes are cut into slices (toxiproxy's `slicer` toxic): each
    /// connection's bytes are written in slices of `averageBytes ± variationBytes`
    /// (uniform, drawn per slice from the connection's own seeded stream), each slice
    /// written on its own, with `gap` between consecutive slices of one connection. A
    /// slice is never above what the link has released so far: the last bytes of a burst
    /// go as a shorter slice rather than wait for more.
    ///
    /// Valid when `averageBytes ≥ 1`, `0 ≤ variationBytes < averageBytes` and `gap ≥ 0`
    /// (`validationError`); the profile reader refuses anything else. The conditioner
    /// plays an invalid value clamped into those bounds rather than trapping.
    public struct Slicing: Equatable, Sendable {
        /// The mean size of a slice, in bytes.
        public var averageBytes: Int
        /// Each slice's size varies uniformly within ±this, in bytes.
        public var variationBytes: Int
        /// Time between the starts of two consecutive slices of one connection.
        public var gap: Duration

        public init(averageBytes: Int, variationBytes: Int = 0, gap: Duration = .zero) {
            self.averageBytes = averageBytes
            self.variationBytes = variationBytes
            self.gap = gap
        }

        /// Why these values are not a valid slicing, or nil when they are.
        public var validationError: String? {
            if averageBytes < 1 { return "the average slice must be at least 1 byte, not \(averageBytes)" }
            if variationBytes < 0 { return "the variation must not be negative (\(variationBytes))" }
            if variationBytes >= averageBytes {
                return "the variation (\(variationBytes) bytes) must be less than the average (\(averageBytes) bytes)"
            }
            if gap < .zero { return "the gap between slices must not be negative" }
            return nil
        }

        /// The smallest and the largest slice, clamped into the valid bounds (at least 1
        /// byte, variation below the average).
        public var sizeRange: ClosedRange<Int> {
            let average = max(1, averageBytes)
            let variation = min(max(0, variationBytes), average - 1)
            return (average - variation)...(average + variation)
        }
    }
}
