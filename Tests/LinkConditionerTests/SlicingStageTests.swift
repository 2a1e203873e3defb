import BenchCore
import Testing
@testable import LinkConditioner

/// Slicing (toxiproxy's slicer) on a hand-moved clock: the sizes, the instants, the
/// streams of each connection, live changes, and its place at the end of a chain.
@Suite("SlicingStage")
struct SlicingStageTests {
    typealias Stage = SlicingStage<StreamBytes>

    func slicer(_ sizes: ClosedRange<Int>, gap: UInt64, seed: UInt64 = 1) -> StageDriver<Stage> {
        StageDriver(Stage(settings: SlicingSettings(sizes: sizes, gap: gap), generator: SeededGenerator(seed: seed)))
    }

    @Test("1000 bytes leave as slices of 100 ± 20 bytes, in order, one gap apart")
    func slicesWithinBoundsAtTheirInstants() {
        var line = slicer(80...120, gap: millisecond)
        line.advance(to: 5 * millisecond)
        line.enqueue(StreamBytes(0..<1000), for: 1)
        line.stepThroughDeadlines(until: second)
        let slices = line.departures
        #expect(slices.count >= 9 && slices.count <= 13, "\(slices.count) slices")
        // Every slice but the last is within the bounds; the last is what was left.
        for slice in slices.dropLast() { #expect((80...120).contains(slice.bytes), "a slice of \(slice.bytes) bytes") }
        #expect((1...120).contains(slices.last!.bytes))
        // In order, every byte once.
        var whole = StreamBytes()
        for slice in slices { whole.append(slice.payload) }
        #expect(whole == StreamBytes(0..<1000))
        // The first at once, each next one gap after the one before.
        #expect(slices.map(\.at) == (0..<UInt64(slices.count)).map { 5 * millisecond + $0 * millisecond })
        #expect(line.stage.queuedBytes == 0 && line.stage.nextDeadline() == nil)
        // Not all the same size: the sizes are drawn.
        #expect(Set(slices.dropLast().map(\.bytes)).count > 1)
    }

    @Test("a slice never waits for bytes: fewer than a slice leave at once, whole")
    func aShortBurstLeavesAtOnce() {
        var line = slicer(100...100, gap: 10 * millisecond)
        line.enqueue(StreamBytes(0..<30), for: 1)
        #expect(line.advance(to: 0).map(\.payload) == [StreamBytes(0..<30)])
    }

    @Test("the gap counts from the last slice: bytes arriving sooner wait for it, later ones go at once")
    func gapCountsFromTheLastSlice() {
        var line = slicer(100...100, gap: 10 * millisecond)
        line.enqueue(StreamBytes(0..<100), for: 1)
        #expect(line.advance(to: 0).count == 1)
        line.advance(to: 4 * millisecond)
        line.enqueue(StreamBytes(100..<150), for: 1)
        #expect(line.stage.nextDeadline() == 10 * millisecond)
        #expect(line.advance(to: 10 * millisecond - 1).isEmpty)
        #expect(line.advance(to: 10 * millisecond).map(\.payload) == [StreamBytes(100..<150)])
        line.advance(to: 50 * millisecond)
        line.enqueue(StreamBytes(150..<200), for: 1)
        #expect(line.advance(to: 50 * millisecond).map(\.at) == [50 * millisecond])
    }

    @Test("each connection is sliced on its own schedule, from a stream of its own")
    func connectionsAreIndependent() {
        var line = slicer(50...150, gap: millisecond)
        line.enqueue(StreamBytes(0..<2000), for: 1)
        line.enqueue(StreamBytes(0..<2000), for: 2)
        line.stepThroughDeadlines(until: second)
        let first = line.departures.filter { $0.connection == 1 }, other = line.departures.filter { $0.connection == 2 }
        // Both start at once and go a gap apart, neither waiting for the other.
        #expect(first.first?.at == 0 && other.first?.at == 0)
        #expect(first.map(\.at) == (0..<UInt64(first.count)).map { $0 * millisecond })
        #expect(other.map(\.at) == (0..<UInt64(other.count)).map { $0 * millisecond })
        #expect(first.map(\.bytes) != other.map(\.bytes), "two connections drew the same sizes")
        // The same seed draws the same sizes again.
        var again = slicer(50...150, gap: millisecond)
        again.enqueue(StreamBytes(0..<2000), for: 1)
        again.stepThroughDeadlines(until: second)
        #expect(again.departures.map(\.bytes) == first.map(\.bytes))
    }

    @Test("removing slicing live lets what it holds go at once, in one piece; a new gap applies to the next slice")
    func liveChanges() {
        var line = slicer(100...100, gap: 10 * millisecond)
        line.enqueue(StreamBytes(0..<1000), for: 1)
        #expect(line.advance(to: 0).map(\.bytes) == [100])
        line.stage.update(settings: SlicingSettings(sizes: 100...100, gap: 2 * millisecond))
        #expect(line.stage.nextDeadline() == 2 * millisecond)
        #expect(line.advance(to: 2 * millisecond).map(\.payload) == [StreamBytes(100..<200)])
        line.advance(to: 3 * millisecond)
        line.stage.update(settings: nil)
        #expect(line.stage.nextDeadline() == 2 * millisecond)  // overdue: at the next advance
        #expect(line.advance(to: 3 * millisecond).map(\.payload) == [StreamBytes(200..<1000)])
        #expect(line.stage.isPassive)
    }

    @Test("removing a connection returns what it held and forgets its next slice")
    func removeConnection() {
        var line = slicer(100...100, gap: millisecond)
        line.enqueue(StreamBytes(0..<350), for: 1)
        line.advance(to: 0)
        #expect(line.stage.pendingBytes(for: 1) == 250)
        #expect(line.stage.removeConnection(1) == 250)
        #expect(line.stage.nextDeadline() == nil && line.stage.queuedBytes == 0)
    }

    @Test("in a chain, slicing comes after the delay, and each slice is a delivery of its own")
    func afterTheDelayInAChain() {
        let slicing = LinkDirectionParameters.Slicing(averageBytes: 400, variationBytes: 0, gap: .milliseconds(5))
        var chain = ChainHarness(LinkDirectionParameters(delay: .milliseconds(20), slicing: slicing))
        chain.enqueue(1000, for: 1)
        chain.stepThroughDeadlines(until: second)
        #expect(chain.deliveries.map(\.bytes) == [400, 400, 200])
        #expect(chain.deliveries.map(\.at) == [20, 25, 30].map { $0 * millisecond })
        #expect(chain.chain.isIdle)
        // Slicing set: the link is not transparent (the driver may not bypass it).
        #expect(!LinkDirectionParameters(slicing: slicing).isTransparent)
    }

    @Test("the settings are clamped into valid bounds, which validationError names")
    func validation() {
        typealias Slicing = LinkDirectionParameters.Slicing
        #expect(Slicing(averageBytes: 100, variationBytes: 20, gap: .milliseconds(1)).validationError == nil)
        #expect(Slicing(averageBytes: 0).validationError?.contains("at least 1 byte") == true)
        #expect(Slicing(averageBytes: 10, variationBytes: 10).validationError?.contains("less than the average") == true)
        #expect(Slicing(averageBytes: 10, variationBytes: -1).validationError?.contains("negative") == true)
        #expect(Slicing(averageBytes: 10, gap: .milliseconds(-1)).validationError?.contains("gap") == true)
        #expect(Slicing(averageBytes: 100, variationBytes: 20).sizeRange == 80...120)
        #expect(Slicing(averageBytes: 0, variationBytes: 5).sizeRange == 1...1)
        #expect(Slicing(averageBytes: 10, variationBytes: 30).sizeRange == 1...19)
        #expect(SlicingSettings(Slicing(averageBytes: 10, gap: .milliseconds(-3))).gap == 0)
    }
}
