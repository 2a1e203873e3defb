extension Duration {
    /// The duration in whole nanoseconds, clamped at zero and at `UInt64.max`.
    public var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 || attoseconds < 0 { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        return whole &+ UInt64(attoseconds / 1_000_000_000)
    }

    /// The duration in seconds as a floating-point value.
    public var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }

    /// A duration from a whole number of nanoseconds.
    public static func nanos(_ value: UInt64) -> Duration {
        .nanoseconds(Int64(clamping: value))
    }
}
