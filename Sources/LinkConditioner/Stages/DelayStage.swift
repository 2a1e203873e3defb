import BenchCore

/// What a `DelayStage` is set to: one-way delay and jitter, in ns.
struct DelaySettings: Equatable, Sendable {
    var delay: UInt64
    /// Each packet's delay is delay + U[-jitter, +jitter], at least zero.
    var jitter: UInt64

    init(delay: UInt64, jitter: UInt64 = 0) {
        self.delay = delay
        self.jitter = jitter
    }
}

/// Delay: the propagation delay line of one interface in one direction.
///
/// A packet arriving at `at` is released at
/// `max(at + max(0, delay + U[-jitter, +jitter]), previous release of its connection)`,
/// so jitter never reorders a connection. `dequeue` hands over, per connection, all
/// the bytes released by `now` as one packet stamped with the release of the last
/// of them, earliest first (ties by slot, so the order is deterministic).
struct DelayStage<Payload: LinkPayload>: LinkStage {
    private(set) var settings: DelaySettings
    private var generator: SeededGenerator
    /// Per-connection lines by slot; nil slots are free for reuse.
    private var lines: [DelayLine<Payload>?] = []
    private var slots = ConnectionSlots()
    /// Head release of every non-empty line.
    private var releases = ReleaseHeap()
    /// Bytes on the lines across all connections.
    private(set) var bytesInFlight = 0

    /// - Parameter generator: a dedicated stream (drawn from only when there is jitter).
    init(settings: DelaySettings, generator: SeededGenerator) {
        self.settings = settings
        self.generator = generator
    }

    /// A live change; bytes already on the line keep their release times.
    mutating func update(settings newSettings: DelaySettings) {
        settings = newSettings
    }

    mutating func enqueue(_ packet: consuming LinkPacket<Payload>) {
        guard packet.bytes > 0 else { return }
        let slot = slots[packet.connection]
            ?? slots.insert(DelayLine(id: packet.connection), for: packet.connection, in: &lines)
        let release = max(packet.at.addingSaturating(propagationSample()), lines[slot]!.lastRelease)
        if lines[slot]!.nextRelease == nil { releases.push(release: release, slot: slot) }
        bytesInFlight += packet.bytes
        lines[slot]!.push(packet.payload, release: release)
    }

    mutating func dequeue(readyBy now: UInt64) -> LinkPacket<Payload>? {
        guard let head = releases.min, head.release <= now else { return nil }
        releases.popMin()
        let (payload, last) = lines[head.slot]!.popReleased(upTo: now)
        bytesInFlight -= payload.count
        if let next = lines[head.slot]!.nextRelease {
            releases.push(release: next, slot: head.slot)
        }
        return LinkPacket(connection: lines[head.slot]!.id, payload: payload, at: last)
    }

    func nextDeadline() -> UInt64? {
        releases.min?.release
    }

    func pendingBytes(for connection: ConnectionID) -> Int {
        guard let slot = slots[connection] else { return 0 }
        return lines[slot]?.bytes ?? 0
    }

    mutating func removeConnection(_ connection: ConnectionID) -> Int {
        guard case let (slot, line)? = slots.remove(connection, from: &lines) else { return 0 }
        bytesInFlight -= line.bytes
        releases.removeAll(slot: slot)
        return line.bytes
    }

    /// One packet's one-way delay: delay + U[-jitter, +jitter], at least zero.
    /// Draws from the generator only when there is jitter.
    private mutating func propagationSample() -> UInt64 {
        let delay = settings.delay
        let jitter = settings.jitter
        guard jitter > 0 else { return delay }
        let sample = Double(delay) + (generator.unit() * 2 - 1) * Double(jitter)
        guard sample > 0 else { return 0 }
        return sample >= 0x1p63 ? UInt64(1) << 63 : UInt64(sample.rounded())
    }
}

extension DelayStage: Sendable where Payload: Sendable {}

extension UInt64 {
    /// `self + other`, or `.max` when that overflows.
    func addingSaturating(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
