import OfflineDownloads
import Testing

@Suite("Store: ProgressBatcher")
struct StoreProgressBatcherTests {
    static let ms: UInt64 = 1_000_000

    static func report(_ index: Int, _ bytes: Int64, etag: String? = nil, length: Int64? = nil) -> SegmentProgress {
        SegmentProgress(key: .init(token: "t", stream: "video", index: index), bytes: bytes, etag: etag, expectedLength: length)
    }

    /// Feeds `reports` (segment index, bytes, time in ms) and returns whether each said the batch was due.
    /// (`#expect` cannot call a mutating member itself.)
    static func feed(_ batcher: inout ProgressBatcher, _ reports: [(Int, Int64, UInt64)]) -> [Bool] {
        reports.map { index, bytes, at in batcher.add(report(index, bytes), now: at * ms) }
    }

    @Test("reports for one segment coalesce: latest bytes, latest ETag and length known")
    func coalesces() {
        var batcher = ProgressBatcher(configuration: .init(maximumPending: 10, maximumDelayNanoseconds: 1_000 * Self.ms))
        var due = [batcher.add(Self.report(0, 100, etag: "\"a\""), now: 0)]
        due += Self.feed(&batcher, [(1, 10, 0)])
        due.append(batcher.add(Self.report(0, 200, length: 900), now: 0))
        due += Self.feed(&batcher, [(0, 300, 0)])
        #expect(due == [false, false, false, false])
        #expect(batcher.pendingCount == 2)
        // One report per segment, in the order of their first report.
        let batch = batcher.drain()
        #expect(batch.progress == [Self.report(0, 300, etag: "\"a\"", length: 900), Self.report(1, 10)])
        #expect(batcher.isEmpty)
        let empty = batcher.drain()
        #expect(empty.isEmpty)
    }

    @Test("a batch falls due when enough segments are pending")
    func flushByCount() {
        var batcher = ProgressBatcher(configuration: .init(maximumPending: 3, maximumDelayNanoseconds: 10_000 * Self.ms))
        #expect(Self.feed(&batcher, [(0, 1, 0), (1, 1, 0)]) == [false, false])
        // More reports for a pending segment do not count as new segments.
        let repeats = Self.feed(&batcher, (2...50).map { (1, Int64($0), 0) })
        #expect(repeats.allSatisfy { !$0 })
        #expect(Self.feed(&batcher, [(2, 1, 0)]) == [true])
        let batch = batcher.drain()
        #expect(batch.progress.count == 3)
        #expect(Self.feed(&batcher, [(3, 1, 0)]) == [false], "a drained batcher starts counting again")
    }

    @Test("a batch falls due when its oldest report is old enough, and not before")
    func flushByTime() {
        var batcher = ProgressBatcher(configuration: .init(maximumPending: 100, maximumDelayNanoseconds: 500 * Self.ms))
        #expect(batcher.flushDeadline == nil)
        #expect(!batcher.shouldFlush(now: 10_000 * Self.ms), "nothing pending is never due")
        #expect(Self.feed(&batcher, [(0, 1, 1_000)]) == [false])
        #expect(batcher.flushDeadline == 1_500 * Self.ms)
        // Later reports do not push the deadline back.
        #expect(Self.feed(&batcher, [(0, 2, 1_400)]) == [false])
        #expect(batcher.flushDeadline == 1_500 * Self.ms)
        #expect(!batcher.shouldFlush(now: 1_500 * Self.ms - 1))
        #expect(batcher.shouldFlush(now: 1_500 * Self.ms))
        #expect(Self.feed(&batcher, [(1, 1, 1_600)]) == [true])
        _ = batcher.drain()
        #expect(batcher.flushDeadline == nil)
        #expect(Self.feed(&batcher, [(2, 1, 1_700)]) == [false])
        #expect(batcher.flushDeadline == 2_200 * Self.ms, "the clock restarts at the first report after a drain")
    }

    @Test("discarding a segment's report drops it, and the deadline when nothing is left")
    func discard() {
        var batcher = ProgressBatcher()
        _ = Self.feed(&batcher, [(0, 1, 0), (1, 1, 0)])
        batcher.discard(.init(token: "t", stream: "video", index: 0))
        batcher.discard(.init(token: "t", stream: "video", index: 7))
        #expect(batcher.pendingCount == 1)
        #expect(batcher.flushDeadline != nil)
        batcher.discard(.init(token: "t", stream: "video", index: 1))
        #expect(batcher.flushDeadline == nil)
        let batch = batcher.drain()
        #expect(batch.isEmpty)
    }

    @Test("a completion replaces its segment's progress, counts toward the batch and drains in order")
    func completions() {
        var batcher = ProgressBatcher(configuration: .init(maximumPending: 3, maximumDelayNanoseconds: 1_000 * Self.ms))
        #expect(Self.feed(&batcher, [(0, 100, 0), (1, 50, 0)]) == [false, false])
        let done0 = SegmentCompletion(key: .init(token: "t", stream: "video", index: 0), bytes: 900, sha256: "aa", etag: nil)
        let dueAfterFirst = batcher.add(done0, now: 10 * Self.ms)
        #expect(!dueAfterFirst, "segment 0's report became its completion: still two pending")
        #expect(batcher.pendingCount == 2)
        #expect(batcher.flushDeadline == 1_000 * Self.ms, "the deadline is the oldest report's")
        let done2 = SegmentCompletion(key: .init(token: "t", stream: "video", index: 2), bytes: 800, sha256: "bb", etag: "\"e\"")
        let dueAfterSecond = batcher.add(done2, now: 20 * Self.ms)
        #expect(dueAfterSecond, "three segments pending: due")
        let batch = batcher.drain()
        #expect(batch.progress == [Self.report(1, 50)])
        #expect(batch.completions == [done0, done2])
        #expect(batcher.isEmpty && batcher.flushDeadline == nil)
        // A completion alone starts the clock.
        var alone = ProgressBatcher(configuration: .init(maximumPending: 10, maximumDelayNanoseconds: 500 * Self.ms))
        let dueAlone = alone.add(done0, now: 100 * Self.ms)
        #expect(!dueAlone)
        #expect(alone.shouldFlush(now: 600 * Self.ms))
    }

    @Test("a batch whose write failed is put back under what came since, and is due at once")
    func restore() {
        var batcher = ProgressBatcher(configuration: .init(maximumPending: 10, maximumDelayNanoseconds: 1_000 * Self.ms))
        _ = Self.feed(&batcher, [(0, 100, 0), (1, 50, 0)])
        let done2 = SegmentCompletion(key: .init(token: "t", stream: "video", index: 2), bytes: 800, sha256: "bb", etag: nil)
        _ = batcher.add(done2, now: 0)
        let failed = batcher.drain()
        // Since the drain: segment 0 moved on, segment 1 completed.
        _ = Self.feed(&batcher, [(0, 300, 500)])
        let done1 = SegmentCompletion(key: .init(token: "t", stream: "video", index: 1), bytes: 700, sha256: "aa", etag: nil)
        _ = batcher.add(done1, now: 500)
        #expect(!batcher.shouldFlush(now: 600 * Self.ms))
        batcher.restore(failed, now: 600 * Self.ms)
        #expect(batcher.shouldFlush(now: 600 * Self.ms), "a failed batch is due again at once")
        let batch = batcher.drain()
        #expect(batch.progress == [Self.report(0, 300)], "the newer bytes of segment 0 win; segment 1 is complete")
        #expect(batch.completions == [done2, done1], "nothing committed is lost, older first")
    }
}
