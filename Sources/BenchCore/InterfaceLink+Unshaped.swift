extension InterfaceLink {
    /// This link with an unlimited downlink or uplink rate given `bitsPerSecond`: what
    /// the harness and the comparison run an interface the profile leaves unshaped at,
    /// so that transfers on loopback take long enough to act on.
    public func withUnshapedRates(_ bitsPerSecond: Double) -> InterfaceLink {
        var link = self
        if link.downlink.rate == .unlimited { link.downlink.rate = .constant(bitsPerSecond: bitsPerSecond) }
        if link.uplink.rate == .unlimited { link.uplink.rate = .constant(bitsPerSecond: bitsPerSecond) }
        return link
    }
}

extension RateSpec {
    /// The mean rate in bits per second (a trace's mean), nil when unlimited.
    public var meanBitsPerSecond: Double? {
        switch self {
        case .unlimited: nil
        case .constant(let bitsPerSecond): bitsPerSecond
        case .trace(let trace): trace.meanBitsPerSecond
        }
    }
}
