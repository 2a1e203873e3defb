/// Read buffers reused from a free list (reuse is worth 25–50% throughput, see MEASURED.md).
/// Loop thread only.
final class BufferPool {
    static let bufferSize = 64 * 1024
    private var free: [UnsafeMutableRawPointer] = []
    private let keep: Int
    private(set) var outstanding = 0

    init(keep: Int = 256) { self.keep = keep }

    func take() -> UnsafeMutableRawPointer {
        outstanding += 1
        return free.popLast() ?? UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
    }

    func give(_ base: UnsafeMutableRawPointer) {
        outstanding -= 1
        if free.count < keep { free.append(base) } else { base.deallocate() }
    }

    deinit {
        for base in free { base.deallocate() }
    }
}

/// Bytes read into a pooled buffer; returns the buffer to the pool when the last slice is gone.
final class Chunk {
    let base: UnsafeMutableRawPointer
    let length: Int
    private let pool: BufferPool

    init(base: UnsafeMutableRawPointer, length: Int, pool: BufferPool) {
        self.base = base
        self.length = length
        self.pool = pool
    }

    deinit { pool.give(base) }

    var whole: ChunkSlice { ChunkSlice(chunk: self, offset: 0, count: length) }
}

/// A range of a chunk; keeps the chunk alive.
struct ChunkSlice {
    let chunk: Chunk
    let offset: Int
    let count: Int

    var start: UnsafeMutableRawPointer { chunk.base + offset }
    /// The slice's bytes, for reading while the slice is alive.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }

    init(chunk: Chunk, offset: Int, count: Int) {
        self.chunk = chunk
        self.offset = offset
        self.count = count
    }

    /// A slice that owns its own copy of `bytes` (for headers we write ourselves).
    init(copying bytes: [UInt8], pool: BufferPool) {
        precondition(bytes.count <= BufferPool.bufferSize)
        let base = pool.take()
        bytes.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        self.init(chunk: Chunk(base: base, length: bytes.count, pool: pool), offset: 0, count: bytes.count)
    }
}
