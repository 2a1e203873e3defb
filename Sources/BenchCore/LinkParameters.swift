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
    /// While true, every byte read from this direction's sender is thrown away as it
    /// arrives: never queued, delayed or delivered, and never a cause of backpressure (the
    /// sender is read as fast as it sends). Counted per interface
    /// (`InterfaceCounters.bytesDiscardedDownlink`, `…Uplink`), not as forwarded. Bytes
    /// already in the link when it is set still arrive; ends (EOF) still pass. Default false.
    /// (toxiproxy's `timeout` toxic, with `ConnectionFaults.closeAfterTime` for its timeout.)
    public var discards: Bool
    /// Each connection's bytes of this direction delivered in slices (`Slicing`), each
    /// written on its own, a gap apart, after rate, loss and delay; nil (the default):
    /// bytes are written as the link releases them. (toxiproxy's `slicer` toxic.)
    public var slicing: Slicing?

    public init(
        rate: RateSpec = .unlimited,
        delay: Duration = .zero,
        jitter: Duration = .zero,
        loss: LossModel = .none,
        queueLimitBytes: Int? = nil,
        discards: Bool = false,
        slicing: Slicing? = nil
    ) {
        self.rate = rate
        self.delay = delay
        self.jitter = jitter
        self.loss = loss
        self.queueLimitBytes = queueLimitBytes
        self.discards = discards
        self.slicing = slicing
    }

    /// A link that changes nothing.
    public static let transparent = LinkDirectionParameters()

    /// True when bytes can be forwarded with no scheduling at all (no rate, delay,
    /// jitter, loss or slicing). Says nothing of `discards`, which drops bytes before any
    /// scheduling.
    public var isTransparent: Bool {
        rate == .unlimited && delay == .zero && jitter == .zero && loss == .none && slicing == nil
    }
}

/// Faults injected into single connections of an interface.
///
/// Byte counts are bytes forwarded on the connection, both directions together. Times
/// count from the connection's acceptance by the conditioner; a time setting that arrives
/// live applies to open connections by their age (one already older is ended at once),
/// and one removed (nil) stops for them. Time-based faults, like every stage, wait while
/// the interface is blackholed: one that fell due meanwhile fires once it is up.
public struct ConnectionFaults: Equatable, Sendable {
    /// Reset (RST both sides) once this many bytes were forwarded.
    public var resetAfterBytes: Int?
    /// Probability that a connection is reset per MiB forwarded (0...1).
    public var resetProbabilityPerMB: Double
    /// Close gracefully (FIN both sides) once this many bytes were forwarded.
    public var closeAfterBytes: Int?
    /// Slow connect: when set, the accept hand-off is delayed by one RTT plus this extra.
    public var slowConnectExtra: Duration?
    /// Reset (RST both sides, `connectionReset`) every connection once it has been open
    /// this long; `.zero` (or less) resets it as soon as it is accepted, before any byte is
    /// forwarded. When it falls on the same instant as `closeAfterTime`, the reset wins.
    /// (toxiproxy's `reset_peer` toxic with its `timeout`.)
    public var resetAfterTime: Duration?
    /// Close gracefully (FIN both sides, dropping what the link still holds, as
    /// `closeAfterBytes` does) every connection once it has been open this long; `.zero`
    /// (or less) closes it as soon as it is accepted. (With `LinkDirectionParameters.discards`,
    /// toxiproxy's `timeout` toxic.)
    public var closeAfterTime: Duration?
    /// Slow close: when one side of a connection ends (EOF), its end reaches the other
    /// side this much later than it would have (after what was sent before it has been
    /// delivered); meanwhile the other side's socket stays open and bytes still flow the
    /// other way. A reset is passed at once. `.zero` or less: no delay.
    /// (toxiproxy's `slow_close` toxic.)
    public var closeDelay: Duration?

    public init(
        resetAfterBytes: Int? = nil,
        resetProbabilityPerMB: Double = 0,
        closeAfterBytes: Int? = nil,
        slowConnectExtra: Duration? = nil,
        resetAfterTime: Duration? = nil,
        closeAfterTime: Duration? = nil,
        closeDelay: Duration? = nil
    ) {
        self.resetAfterBytes = resetAfterBytes
        self.resetProbabilityPerMB = resetProbabilityPerMB
        self.closeAfterBytes = closeAfterBytes
        self.slowConnectExtra = slowConnectExtra
        self.resetAfterTime = resetAfterTime
        self.closeAfterTime = closeAfterTime
        self.closeDelay = closeDelay
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
