/// Printing of rates, sizes, durations and probabilities in the same units the
/// parsers read, so that what `bench profile check` prints can be pasted back
/// into a profile.
extension Units {
    /// `780kbit/s`, `1.44Mbit/s`, `8.1Mbit/s`, `500bit/s`.
    public static func format(bitsPerSecond bps: Double) -> String {
        guard bps.isFinite else { return "\(bps)bit/s" }
        let steps: [(Double, String)] = [(1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")]
        for (scale, unit) in steps where bps >= scale {
            return trimmed(bps / scale) + unit
        }
        return trimmed(bps) + "bit/s"
    }

    /// `unlimited`, `780kbit/s`, or `trace NAME (mean 1.2Mbit/s)`.
    public static func format(_ rate: RateSpec) -> String {
        switch rate {
        case .unlimited: "unlimited"
        case .constant(let bps): format(bitsPerSecond: bps)
        case .trace(let trace):
            "trace \(trace.name) (mean \(format(bitsPerSecond: trace.meanBitsPerSecond))"
                + (trace.loops ? ", looping)" : ")")
        }
    }

    /// `1500B`, `256KiB`, `5MB`: binary units when they divide exactly, then decimal ones.
    public static func format(bytes: Int) -> String {
        let binary: [(Int, String)] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
        for (scale, unit) in binary where bytes >= scale && bytes % scale == 0 {
            return "\(bytes / scale)\(unit)"
        }
        let decimal: [(Int, String)] = [(1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "KB")]
        for (scale, unit) in decimal where bytes >= scale && bytes % scale == 0 {
            return "\(bytes / scale)\(unit)"
        }
        return "\(bytes)B"
    }

    /// `0s`, `250us`, `562.5ms`, `1.5s`, `10m`, `1m30s`, `1h`.
    public static func format(_ duration: Duration) -> String {
        let ns = duration.nanoseconds
        if ns == 0 { return "0s" }
        let second: UInt64 = 1_000_000_000
        if ns >= 60 * second, ns % second == 0 {
            var seconds = ns / second
            var text = ""
            if seconds >= 3600 {
                text += "\(seconds / 3600)h"
                seconds %= 3600
            }
            if seconds >= 60 {
                text += "\(seconds / 60)m"
                seconds %= 60
            }
            if seconds > 0 { text += "\(seconds)s" }
            return text
        }
        if ns >= second { return trimmed(Double(ns) / 1e9) + "s" }
        if ns >= 1_000_000 { return trimmed(Double(ns) / 1e6) + "ms" }
        if ns >= 1_000 { return trimmed(Double(ns) / 1e3) + "us" }
        return "\(ns)ns"
    }

    /// `1%`, `0.5%`, `100%`.
    public static func format(probability: Double) -> String {
        trimmed(probability * 100) + "%"
    }

    /// A number with at most three decimals and no trailing zeros.
    private static func trimmed(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 {
            return String(Int64(rounded))
        }
        var text = String(rounded)
        if text.contains("e") { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
