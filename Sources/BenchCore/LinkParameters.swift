/// Where a link's rate comes from.
public enum RateSpec: Equatable, Sendable {
    /// No shaping: bytes go as fast as the sockets allow.
    case unlimited
    /// A constant rate in bits per second, shared by every connection of the interface.
    case constant(bitsPerSecond: Double)
    /// A rate that follows a measured trace (already loaded and validated).
    case trace(RateTrace)

    /// The rate at offset `t` nanoseconds, or nil when unlimited.
    public func bitsPerSecond(at t: UInt64) -> Double? {
        switch self {
        case .unlimited: nil
        case .constant(let bps): bps
        case .trace(let trace): trace.bitsPerSecond(at: t)
        }
    }
}

/// How bytes are lost on a link, modelled per MTU of the byte stream.
///
/// A userspace TCP proxy cannot drop packets inside the kernel's TCP, so a lost
/// "packet" holds its connection's stream for a retransmission timeout and its
/// bytes are charged to the link again (see DESIGN.md §2).
public enum LossModel: Equatable, Sendable {
    case none
    /// Each MTU is lost independently with `probability` (0...1).
    case bernoulli(probability: Double)
    /// Two-state bursty loss. In the good state an MTU is lost with `lossInGood`,
    /// in the bad state with `lossInBad`; after each MTU the state moves
    /// good→bad with `goodToBad` and bad→good with `badToGood`.
    case gilbertElliott(goodToBad: Double, badToGood: Double, lossInGood: Double, lossInBad: Double)

    /// The long-run fraction of MTUs lost.
    public var meanLossRate: Double {
        switch self {
        case .none: 0
        case .bernoulli(let p): p
        case let .gilbertElliott(p, r, h, k):
            p + r == 0 ? h : (r * h + p * k) / (p + r)
        }
    }
}

/// Impairment of one interface in one direction.
public struct LinkDirectionParameters: Equatable, Sendable {
    /// Rate shared fairly by every connection of the interface.
    public var rate: RateSpec
    /// One-way propagation delay.
    public var delay: Duration
    /// Jitter: each delivery's delay varies uniformly within ±jitter; order is never changed.
    public var jitter: Duration
    /// Loss model, applied per MTU.
    public var loss: LossModel
    /// Bytes that may wait at the bottleneck before the conditioner stops reading
    /// from the sender (backpressure); nil means the default (1 MiB).
    public var queueLimitBytes: Int?

    public init(
        rate: RateSpec = .unlimited,
        delay: Duration = .zero,
        jitter: Duration = .zero,
        loss: LossModel = .none,
        queueLimitBytes: Int? = nil
    ) {
        self.rate = rate
        self.delay = delay
        self.jitter = jitter
        self.loss = loss
        self.queueLimitBytes = queueLimitBytes
    }

    /// A link that changes nothing.
    public static let transparent = LinkDirectionParameters()

    /// True when bytes can be forwarded with no scheduling at all.
    public var isTransparent: Bool {
        rate == .unlimited && delay == .zero && jitter == .zero && loss == .none
    }
}

/// Faults injected into single connections of an interface.
///
/// Byte counts are bytes forwarded on the connection, both directions together.
public struct ConnectionFaults: Equatable, Sendable {
    /// Reset (RST both sides) once this many bytes were forwarded.
    public var resetAfterBytes: Int?
    /// Probability that a connection is reset per MiB forwarded (0...1).
    public var resetProbabilityPerMB: Double
    /// Close gracefully (FIN both sides) once this many bytes were forwarded.
    public var closeAfterBytes: Int?
    /// Slow connect: when set, the accept hand-off is delayed by one RTT plus this extra.
    public var slowConnectExtra: Duration?

    public init(
        resetAfterBytes: Int? = nil,
        resetProbabilityPerMB: Double = 0,
        closeAfterBytes: Int? = nil,
        slowConnectExtra: Duration? = nil
    ) {
        self.resetAfterBytes = resetAfterBytes
        self.resetProbabilityPerMB = resetProbabilityPerMB
        self.closeAfterBytes = closeAfterBytes
        self.slowConnectExtra = slowConnectExtra
    }

    public static let none = ConnectionFaults()
}

/// Everything that describes one interface's link at a moment.
public struct InterfaceLink: Equatable, Sendable {
    public var downlink: LinkDirectionParameters
    public var uplink: LinkDirectionParameters
    public var faults: ConnectionFaults
    /// Reported in the network path (cellular is expensive).
    public var isExpensive: Bool
    /// Reported in the network path (Low Data Mode).
    public var isConstrained: Bool

    public init(
        downlink: LinkDirectionParameters = .transparent,
        uplink: LinkDirectionParameters = .transparent,
        faults: ConnectionFaults = .none,
        isExpensive: Bool = false,
        isConstrained: Bool = false
    ) {
        self.downlink = downlink
        self.uplink = uplink
        self.faults = faults
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
    }

    public subscript(direction: Direction) -> LinkDirectionParameters {
        get { direction == .downlink ? downlink : uplink }
        set {
            if direction == .downlink { downlink = newValue } else { uplink = newValue }
        }
    }

    /// Round-trip time implied by the two one-way delays.
    public var roundTrip: Duration { downlink.delay + uplink.delay }

    /// Retransmission timeout used by the loss model: max(200 ms, 2·RTT).
    public var retransmissionTimeout: Duration { max(.milliseconds(200), roundTrip * 2) }
}
