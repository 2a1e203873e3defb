/// A fast, seedable random number generator (xoshiro256**), seeded through SplitMix64.
///
/// Every random choice in Deadzone comes from one of these so that a run is
/// reproducible from the seed printed in its report.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    public init(seed: UInt64) {
        var sm = seed
        func splitmix() -> UInt64 {
            sm &+= 0x9E37_79B9_7F4A_7C15
            var z = sm
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitmix(); s1 = splitmix(); s2 = splitmix(); s3 = splitmix()
    }

    /// A generator for a named sub-stream, so that independent parts stay independent
    /// of each other's draws (e.g. `derived("wifi.downlink")`).
    public func derived(_ label: String) -> SeededGenerator {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in label.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return SeededGenerator(seed: s0 ^ h)
    }

    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// A uniform double in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        p > 0 && (p >= 1 || unit() < p)
    }
}
