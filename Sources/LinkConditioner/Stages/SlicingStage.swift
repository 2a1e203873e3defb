import BenchCore

/// What a `SlicingStage` is set to, clamped into valid bounds: slice sizes in bytes, the
/// gap in ns.
struct SlicingSettings: Equatable, Sendable {
    var sizes: ClosedRange<Int>
    var gap: UInt64

    init(_ slicing: LinkDirectionParameters.Slicing) {
        sizes = slicing.sizeRange
        gap = slicing.gap.nanoseconds
    }

    init(sizes: ClosedRange<Int>, gap: UInt64) {
        self.sizes = max(1, sizes.lowerBound)...max(1, sizes.upperBound)
        self.gap = gap
    }
}

/// Slicing (toxiproxy's slicer): the last stage of a direction's chain, after delay.
/// Each connection's bytes leave in slices whose sizes are drawn uniformly from
/// `settings.sizes` (per slice, from a stream of the connection's own), the next slice of
/// a connection no sooner than `gap` after the one before. A slice is at most what the
/// stage holds for its connection: bytes never wait for more bytes, so the end of a
/// burst leaves as a shorter slice. `dequeue` hands over one slice per packet, so the
/// driver writes each on its own.
///
/// With no settings the stage is passive (`LinkChain` skips it when it holds nothing);
/// what it still holds after slicing was removed leaves at once, in one packet per
/// connection. A live change of the gap applies to the next slice of every connection.
struct SlicingStage<Payload: LinkPayload>: LinkStage {
    private(set) var settings: SlicingSettings?
    /// Root of the per-connection streams (`derived("connection.<id>")`).
    private let generator: SeededGenerator
    private var lines: [SliceLine<Payload>?] = []
    private var slots = ConnectionSlots()
    /// Next slice of every line that holds bytes.
    private var releases = ReleaseHeap()
    /// Bytes held across all connections.
    private(set) var queuedBytes = 0

    init(settings: SlicingSettings?, generator: SeededGenerator) {
        self.settings = settings
        self.generator = generator
    }

    /// True when bytes may skip the stage: no slicing and nothing held.
    var isPassive: Bool { settings == nil && queuedBytes == 0 }

    /// A live change: each connection's next slice is rescheduled by the new gap (at
    /// once when slicing is removed) and sized by the new sizes.
    mutating func update(settings newSettings: SlicingSettings?) {
        guard newSettings != settings else { return }
        settings = newSettings
        releases = ReleaseHeap()
        for slot in lines.indices {
            guard let line = lines[slot], line.pending.count > 0 else { continue }
            releases.push(release: line.nextRelease(gap: gap), slot: slot)
        }
    }

    private var gap: UInt64 { settings?.gap ?? 0 }

    mutating func enqueue(_ packet: consuming LinkPacket<Payload>) {
        guard packet.bytes > 0 else { return }
        let id = packet.connection
        let slot = slots[id] ?? slots.insert(SliceLine(id: id, generator: generator.derived("connection.\(id.rawValue)")),
                                             for: id, in: &lines)
        queuedBytes += packet.bytes
        let wasEmpty = lines[slot]!.pending.count == 0
        lines[slot]!.take(packet.payload, at: packet.at)
        if wasEmpty { releases.push(release: lines[slot]!.nextRelease(gap: gap), slot: slot) }
    }

    mutating func dequeue(readyBy now: UInt64) -> LinkPacket<Payload>? {
        guard let head = releases.min, head.release <= now else { return nil }
        releases.popMin()
        let slice = lines[head.slot]!.cut(settings?.sizes, at: head.release)
        queuedBytes -= slice.count
        if lines[head.slot]!.pending.count > 0 {
            releases.push(release: lines[head.slot]!.nextRelease(gap: gap), slot: head.slot)
        }
        return LinkPacket(connection: lines[head.slot]!.id, payload: slice, at: head.release)
    }

    func nextDeadline() -> UInt64? {
        releases.min?.release
    }

    func pendingBytes(for connection: ConnectionID) -> Int {
        guard let slot = slots[connection] else { return 0 }
        return lines[slot]?.pending.count ?? 0
    }

    mutating func removeConnection(_ connection: ConnectionID) -> Int {
        guard case let (slot, line)? = slots.remove(connection, from: &lines) else { return 0 }
        queuedBytes -= line.pending.count
        releases.removeAll(slot: slot)
        return line.pending.count
    }
}

extension SlicingStage: Sendable where Payload: Sendable {}

/// One connection's bytes waiting to be sliced, and when its last slice left.
struct SliceLine<Payload: LinkPayload> {
    let id: ConnectionID
    var generator: SeededGenerator
    private(set) var pending = Payload()
    /// When the oldest held byte became available (its arrival, or the last slice's
    /// departure for bytes left over from it).
    private(set) var availableAt: UInt64 = 0
    /// When the last slice left; nil before the first.
    private(set) var lastSlice: UInt64?

    init(id: ConnectionID, generator: SeededGenerator) {
        self.id = id
        self.generator = generator
    }

    mutating func take(_ payload: consuming Payload, at: UInt64) {
        if pending.count == 0 { availableAt = at }
        pending.append(payload)
    }

    /// When the next slice may leave: once its bytes are there, and `gap` after the last one.
    func nextRelease(gap: UInt64) -> UInt64 {
        max(availableAt, lastSlice?.addingSaturating(gap) ?? 0)
    }

    /// Cuts the next slice, leaving at `at`: a size drawn from `sizes` (all that is held
    /// when nil), at most what is held.
    mutating func cut(_ sizes: ClosedRange<Int>?, at: UInt64) -> Payload {
        lastSlice = at
        var size = pending.count
        if let sizes {
            let drawn = sizes.lowerBound == sizes.upperBound
                ? sizes.lowerBound : Int.random(in: sizes, using: &generator)
            size = min(max(1, drawn), pending.count)
        }
        guard size < pending.count else {
            var all = Payload()
            swap(&all, &pending)
            return all
        }
        availableAt = at
        return pending.removePrefix(size)
    }
}

extension SliceLine: Sendable where Payload: Sendable {}
