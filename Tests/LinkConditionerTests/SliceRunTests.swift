import BenchCore
import Testing
@testable import LinkConditioner

@Suite("SliceRun")
struct SliceRunTests {
    let pool = BufferPool()

    /// A chunk holding `bytes`.
    func chunk(_ bytes: [UInt8]) -> Chunk {
        ChunkSlice(copying: bytes, pool: pool).chunk
    }

    func bytes(_ run: SliceRun) -> [UInt8] {
        run.slices.flatMap { slice in
            Array(UnsafeRawBufferPointer(start: slice.start, count: slice.count))
        }
    }

    @Test("appending the continuation of the last slice extends it; another buffer stays a slice of its own")
    func appendMergesContiguousSlices() {
        let a = chunk(Array(0..<100)), b = chunk(Array(100..<200))
        var run = SliceRun(ChunkSlice(chunk: a, offset: 0, count: 40))
        run.append(SliceRun(ChunkSlice(chunk: a, offset: 40, count: 60)))
        #expect(run.slices.count == 1)
        run.append(SliceRun(ChunkSlice(chunk: b, offset: 0, count: 50)))
        run.append(SliceRun(ChunkSlice(chunk: b, offset: 50, count: 50)))
        #expect(run.slices.map(\.count) == [100, 100])
        #expect(run.count == 200)
        #expect(bytes(run) == Array(0..<200))
    }

    @Test("a prefix splits at the byte asked for, across buffers")
    func removePrefixSplitsExactly() {
        let a = chunk(Array(0..<100)), b = chunk(Array(100..<200))
        var run = SliceRun(a.whole)
        run.append(SliceRun(b.whole))
        let prefix = run.removePrefix(130)
        #expect(bytes(prefix) == Array(0..<130))
        #expect(bytes(run) == Array(130..<200))
        #expect(prefix.count == 130 && run.count == 70)
    }

    @Test("any cutting and joining gives back the same bytes in the same order")
    func cutAndJoinKeepsTheBytes() {
        var rng = SeededGenerator(seed: 4)
        var source: [UInt8] = []
        var run = SliceRun()
        for _ in 0..<20 {
            let piece = (0..<(1 + Int(rng.next() % 300))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            source += piece
            run.append(SliceRun(chunk(piece).whole))
        }
        var rebuilt = SliceRun()
        while run.count > 0 {
            let n = 1 + Int(rng.next() % 500)
            if n >= run.count {
                rebuilt.append(run)
                run = SliceRun()
            } else {
                rebuilt.append(run.removePrefix(n))
            }
        }
        #expect(bytes(rebuilt) == source)
        // Cut pieces that are rejoined in order merge back: no more slices than buffers.
        #expect(rebuilt.slices.count == 20)
    }

    @Test("the buffers go back to the pool when the last slice of them is gone")
    func buffersReturnToThePool() {
        do {
            var run = SliceRun(chunk(Array(0..<100)).whole)
            let prefix = run.removePrefix(10)
            #expect(pool.outstanding == 1)
            _ = prefix
        }
        #expect(pool.outstanding == 0)
    }
}
