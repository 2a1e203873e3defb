/// A binary min-heap of (release time, line slot): which connection's delay line
/// releases next.
///
/// `DelayStage` keeps at most one entry per line (the release time of its head), so
/// the heap holds at most one entry per connection with bytes in flight.
/// Ties are broken by slot so that the order is deterministic.
struct ReleaseHeap: Sendable {
    struct Entry: Sendable, Equatable {
        var release: UInt64
        var slot: Int

        static func precedes(_ a: Entry, _ b: Entry) -> Bool {
            a.release != b.release ? a.release < b.release : a.slot < b.slot
        }
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    /// The earliest entry, if any.
    var min: Entry? { entries.first }

    mutating func push(release: UInt64, slot: Int) {
        entries.append(Entry(release: release, slot: slot))
        siftUp(entries.count - 1)
    }

    @discardableResult
    mutating func popMin() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let top = entries.removeLast()
        if !entries.isEmpty { siftDown(0) }
        return top
    }

    /// Removes every entry of `slot` (O(n); only used when a connection is forgotten).
    mutating func removeAll(slot: Int) {
        let before = entries.count
        entries.removeAll { $0.slot == slot }
        guard entries.count != before else { return }
        var i = entries.count / 2
        while i > 0 {
            i -= 1
            siftDown(i)
        }
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard Entry.precedes(entries[child], entries[parent]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        let n = entries.count
        while true {
            let left = 2 * parent + 1
            guard left < n else { return }
            var best = left
            if left + 1 < n, Entry.precedes(entries[left + 1], entries[left]) { best = left + 1 }
            guard Entry.precedes(entries[best], entries[parent]) else { return }
            entries.swapAt(best, parent)
            parent = best
        }
    }
}
