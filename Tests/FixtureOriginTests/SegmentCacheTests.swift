@testable import FixtureOrigin
import Foundation
import Testing

/// The origin's bounded segment cache: oldest out first, bounded by count and bytes.
@Suite struct SegmentCacheTests {
    private func resource(_ size: Int, _ fill: UInt8 = 1) -> ContentResource {
        ContentResource(contentType: "video/mp2t", bytes: [UInt8](repeating: fill, count: size), lastModified: Date())
    }

    @Test func keepsWhatFitsAndAnswersIt() {
        var cache = SegmentCache(maximumEntries: 3, maximumBytes: 1000)
        cache["/a"] = resource(100)
        cache["/b"] = resource(200)
        #expect(cache.count == 2)
        #expect(cache["/a"]?.bytes.count == 100 && cache["/b"]?.bytes.count == 200)
        #expect(cache["/c"] == nil)
    }

    @Test func dropsTheOldestWhenFullByCount() {
        var cache = SegmentCache(maximumEntries: 2, maximumBytes: 1000)
        cache["/a"] = resource(10)
        cache["/b"] = resource(10)
        cache["/c"] = resource(10)
        #expect(cache.count == 2 && cache["/a"] == nil && cache["/b"] != nil && cache["/c"] != nil)
    }

    @Test func dropsAsManyOldOnesAsTheBytesNeed() {
        var cache = SegmentCache(maximumEntries: 10, maximumBytes: 1000)
        cache["/a"] = resource(400)
        cache["/b"] = resource(400)
        cache["/c"] = resource(100)
        cache["/d"] = resource(700)  // needs /a and /b gone: 100 + 700 <= 1000
        #expect(cache["/a"] == nil && cache["/b"] == nil)
        #expect(cache["/c"] != nil && cache["/d"] != nil && cache.count == 2)
    }

    @Test func neverHoldsWhatIsBiggerThanTheWholeBudget() {
        var cache = SegmentCache(maximumEntries: 10, maximumBytes: 1000)
        cache["/a"] = resource(10)
        cache["/huge"] = resource(1001)
        #expect(cache["/huge"] == nil && cache["/a"] != nil)
        var disabled = SegmentCache(maximumEntries: 0, maximumBytes: 1000)
        disabled["/a"] = resource(1)
        #expect(disabled.count == 0)
    }

    @Test func theFirstValueOfAPathStays() {
        var cache = SegmentCache(maximumEntries: 10, maximumBytes: 1000)
        cache["/a"] = resource(10, 1)
        cache["/a"] = resource(20, 2)
        #expect(cache["/a"]?.bytes == [UInt8](repeating: 1, count: 10) && cache.count == 1)
    }

    @Test func aLongRunStaysWithinBothBounds() {
        var cache = SegmentCache(maximumEntries: 16, maximumBytes: 5000)
        var total = 0
        for i in 0..<200 {
            cache["/s\(i)"] = resource(100 + (i * 37) % 900)
            total = (0...i).reduce(0) { sum, j in sum + (cache["/s\(j)"]?.bytes.count ?? 0) }
            #expect(cache.count <= 16 && total <= 5000)
            #expect(cache["/s\(i)"] != nil, "the newest entry is always kept")
        }
        #expect(total > 0)
    }
}
