import BenchCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The faults of one connection: reset or close after a number of bytes, and
/// random resets at a rate per MiB.
///
/// A pure state machine: the per-connection state of `ConnectionFaultStage`
/// (loop thread only). Before bytes of either direction go to their receiver the
/// stage calls `admit(_:)`, passes `allowed` of them on, and the driver performs
/// `action` if there is one. Byte counts are over the connection's total
/// forwarded bytes, both directions.
struct ConnectionFaultState: Sendable {
    /// Bytes in a MiB: `resetProbabilityPerMB` is per MiB of forwarded data.
    static let bytesPerMiB = 1_048_576.0

    private(set) var faults: ConnectionFaults
    private var generator: SeededGenerator
    /// Bytes admitted so far.
    private(set) var forwardedBytes = 0
    /// Total forwarded bytes at which the next random reset fires; nil when there is none.
    private(set) var randomResetAt: Int?
    /// The action that ended the connection; once set, nothing more is admitted.
    private(set) var firedAction: FaultAction?

    /// - Parameter generator: a stream of this connection's own (e.g. derived from
    ///   the profile seed and the connection id), so connections stay independent.
    init(faults: ConnectionFaults, generator: SeededGenerator) {
        self.faults = faults
        self.generator = generator
        scheduleRandomReset()
    }

    /// A live change. Thresholds apply to the bytes already forwarded: one that is
    /// already passed fires on the next `admit`. A changed reset probability draws
    /// a new distance from here (the exponential has no memory, so this is exact).
    mutating func update(faults newFaults: ConnectionFaults) {
        let probabilityChanged = newFaults.resetProbabilityPerMB != faults.resetProbabilityPerMB
        faults = newFaults
        if probabilityChanged { scheduleRandomReset() }
    }

    /// `bytes` are about to be forwarded: the first `allowed` of them may go, then
    /// the driver performs `action`.
    ///
    /// When several faults fall on the same byte, a reset beats a close: the
    /// connection cannot both end cleanly and abort, and the abrupt end is the
    /// harsher, more informative fault for the client under test. Once an action
    /// has fired, every later call admits nothing and repeats it.
    mutating func admit(_ bytes: Int) -> (allowed: Int, action: FaultAction?) {
        if let firedAction { return (0, firedAction) }
        let bytes = max(bytes, 0)
        let end = forwardedBytes + bytes
        var threshold = Int.max
        var action: FaultAction?
        // In order of precedence; a later fault wins only at a strictly earlier byte.
        if let limit = faults.resetAfterBytes, limit <= end, limit < threshold {
            threshold = limit
            action = .reset(reason: "reset after \(limit) bytes")
        }
        if let at = randomResetAt, at <= end, at < threshold {
            threshold = at
            action = .reset(reason: "random reset (p=\(faults.resetProbabilityPerMB) per MiB) after \(at) bytes")
        }
        if let limit = faults.closeAfterBytes, limit <= end, limit < threshold {
            threshold = limit
            action = .close(reason: "close after \(limit) bytes")
        }
        guard let action else {
            forwardedBytes = end
            return (bytes, nil)
        }
        let allowed = max(0, threshold - forwardedBytes)
        forwardedBytes += allowed
        firedAction = action
        return (allowed, action)
    }

    /// Slow connect: how long the driver delays the accept hand-off (one RTT plus
    /// `slowConnectExtra`), in ns; nil when the link has no slow connect.
    static func slowConnectDelay(link: InterfaceLink) -> UInt64? {
        guard let extra = link.faults.slowConnectExtra else { return nil }
        let (total, overflow) = link.roundTrip.nanoseconds.addingReportingOverflow(extra.nanoseconds)
        return overflow ? .max : total
    }

    /// Draws the distance to the next random reset from an exponential law with
    /// rate λ = -ln(1 - p) per MiB, so that P(reset within one MiB) = p.
    /// p = 0 never resets; p = 1 resets at once.
    private mutating func scheduleRandomReset() {
        let p = faults.resetProbabilityPerMB
        guard p > 0 else {
            randomResetAt = nil
            return
        }
        guard p < 1 else {
            randomResetAt = forwardedBytes
            return
        }
        let rate = -log1p(-p)
        let u = 1 - generator.unit()  // (0, 1]
        let distance = -log(u) / rate * Self.bytesPerMiB
        randomResetAt = distance >= Double(Int.max - forwardedBytes)
            ? nil : forwardedBytes + Int(distance.rounded(.up))
    }
}
