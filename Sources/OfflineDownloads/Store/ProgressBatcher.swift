/// Collects segment progress between writes to the index, so that a transfer does
/// not write a row for every chunk that arrives (Media3's `DownloadManager` does the
/// same with its progress updates).
///
/// A pure value: no I/O, no clock. The engine's driver owns one, `add`s a report for
/// each chunk written to a `.part` file with the current time, and when `add` (or
/// `shouldFlush(now:)`, at `flushDeadline`) says so, `drain`s it into
/// `DownloadIndex.recordProgress(_:)`. Reports for one segment coalesce: the latest
/// bytes, and the latest ETag and length known. Times are nanoseconds on any
/// monotonic clock, e.g. `DispatchTime.now().uptimeNanoseconds`.
public struct ProgressBatcher: Sendable {
    /// When a batch is due.
    public struct Configuration: Sendable, Hashable {
        /// Flush when this many segments have unwritten progress.
        public var maximumPending: Int
        /// Flush when the oldest unwritten report is this old, in nanoseconds: the
        /// most progress a crash can lose, in time.
        public var maximumDelayNanoseconds: UInt64

        /// Creates a configuration; by default 32 segments or one second.
        public init(maximumPending: Int = 32, maximumDelayNanoseconds: UInt64 = 1_000_000_000) {
            precondition(maximumPending > 0, "a batch holds at least one segment")
            self.maximumPending = maximumPending
            self.maximumDelayNanoseconds = maximumDelayNanoseconds
        }
    }

    /// When a batch is due.
    public let configuration: Configuration
    private var pending: [SegmentRecord.Key: SegmentProgress] = [:]
    /// The segments in the order of their first report since the last drain.
    private var order: [SegmentRecord.Key] = []
    /// When the oldest unwritten report arrived.
    private var oldestReportAt: UInt64?

    /// An empty batcher.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The segments with unwritten progress.
    public var pendingCount: Int { order.count }
    /// Nothing is waiting to be written.
    public var isEmpty: Bool { order.isEmpty }

    /// When the pending batch falls due by time, or nil when nothing is pending: the
    /// driver arms a timer for this instant and then calls `shouldFlush(now:)`.
    public var flushDeadline: UInt64? {
        oldestReportAt.map { $0 &+ configuration.maximumDelayNanoseconds }
    }

    /// Adds a report that arrived at `now`, coalescing it with the segment's pending
    /// one; returns whether the batch is due (then `drain()` it).
    public mutating func add(_ update: SegmentProgress, now: UInt64) -> Bool {
        if let earlier = pending[update.key] {
            pending[update.key] = earlier.merged(with: update)
        } else {
            pending[update.key] = update
            order.append(update.key)
        }
        if oldestReportAt == nil { oldestReportAt = now }
        return shouldFlush(now: now)
    }

    /// Whether the batch is due at `now`: enough segments, or the oldest report old enough.
    public func shouldFlush(now: UInt64) -> Bool {
        guard let deadline = flushDeadline else { return false }
        return order.count >= configuration.maximumPending || now >= deadline
    }

    /// Forgets the pending report of `key` (e.g. its segment was just recorded complete).
    public mutating func discard(_ key: SegmentRecord.Key) {
        guard pending.removeValue(forKey: key) != nil else { return }
        order.removeAll { $0 == key }
        if order.isEmpty { oldestReportAt = nil }
    }

    /// Takes the pending reports, one per segment in the order of their first report,
    /// and starts a new batch.
    public mutating func drain() -> [SegmentProgress] {
        let batch = order.compactMap { pending[$0] }
        pending.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        oldestReportAt = nil
        return batch
    }
}
