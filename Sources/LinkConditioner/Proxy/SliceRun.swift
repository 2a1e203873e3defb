/// Bytes of one connection's stream as slices of pooled read buffers, in order:
/// the payload the link chains carry in production, so the bytes themselves wait
/// in the stage they have reached and nowhere else.
///
/// Most runs are one slice (a quantum rarely spans two reads), kept inline; more
/// go to an array. Appending a slice that continues the last one in the same
/// buffer extends it, so bytes released together are written as few slices.
/// Loop thread only (it holds `Chunk`s).
struct SliceRun: LinkPayload {
    private var first: ChunkSlice?
    private var rest: [ChunkSlice] = []
    private(set) var count = 0

    init() {}

    init(_ slice: ChunkSlice) {
        if slice.count > 0 {
            first = slice
            count = slice.count
        }
    }

    /// The slices, in stream order (for a write).
    var slices: [ChunkSlice] {
        guard let first else { return [] }
        return rest.isEmpty ? [first] : [first] + rest
    }

    mutating func append(_ other: SliceRun) {
        guard let otherFirst = other.first else { return }
        guard first != nil else {
            self = other
            return
        }
        appendSlice(otherFirst)
        for slice in other.rest { appendSlice(slice) }
    }

    mutating func removePrefix(_ n: Int) -> SliceRun {
        precondition(n > 0 && n < count, "a prefix is some of the bytes, not all")
        var prefix = SliceRun()
        var remaining = n
        while remaining > 0, let head = first {
            if head.count <= remaining {
                prefix.appendSlice(head)
                remaining -= head.count
                count -= head.count
                first = rest.isEmpty ? nil : rest.removeFirst()
            } else {
                prefix.appendSlice(ChunkSlice(chunk: head.chunk, offset: head.offset, count: remaining))
                first = ChunkSlice(chunk: head.chunk, offset: head.offset + remaining, count: head.count - remaining)
                count -= remaining
                remaining = 0
            }
        }
        return prefix
    }

    private mutating func appendSlice(_ slice: ChunkSlice) {
        guard slice.count > 0 else { return }
        count += slice.count
        guard let head = first else {
            first = slice
            return
        }
        if let last = rest.last {
            if let merged = last.continued(by: slice) { rest[rest.count - 1] = merged } else { rest.append(slice) }
        } else if let merged = head.continued(by: slice) {
            first = merged
        } else {
            rest.append(slice)
        }
    }
}

extension ChunkSlice {
    /// One slice covering `self` then `next`, when `next` starts where `self` ends in the same buffer.
    func continued(by next: ChunkSlice) -> ChunkSlice? {
        guard next.chunk === chunk, next.offset == offset + count else { return nil }
        return ChunkSlice(chunk: chunk, offset: offset, count: count + next.count)
    }
}
