/// Collects segment progress and completions between writes to the index, so that a
/// transfer does not write a row for every chunk that arrives nor a transaction for
/// every segment (Media3's `DownloadManager` batches its progress updates the same way).
///
/// A pure value: no I/O, no clock. The engine's transfer owns one, `add`s a report for
/// each chunk written to a `.part` file and a completion for each segment committed
/// (synced and renamed), with the current time, and when `add` (or
/// `shouldFlush(now:)`, at `flushDeadline`) says so, `drain`s it into
/// `DownloadIndex.record(_:)`. Reports for one segment coalesce: the latest bytes, and
/// the latest ETag and length known; a completion replaces the segment's report.
/// Holding a completion back is safe: its file is already in place, and start-up
/// reconciliation counts a final file as stored whatever its record says. Times are
/// nanoseconds on any monotonic clock, e.g. `DispatchTime.now().uptimeNanoseconds`.
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
    /// Segments committed and not yet recorded, in order.
    private var completions: [SegmentCompletion] = []
    /// When the oldest unwritten report arrived.
    private var oldestReportAt: UInt64?
    /// A failed batch was put back: due at once.
    private var isOverdue = false

    /// An empty batcher.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The segments with unwritten progress or completion.
    public var pendingCount: Int { order.count + completions.count }
    /// Nothing is waiting to be written.
    public var isEmpty: Bool { order.isEmpty && completions.isEmpty }

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

    /// Adds the completion of a segment committed at `now` (its pending progress report,
    /// if any, is dropped: the completion says more); returns whether the batch is due.
    public mutating func add(_ completion: SegmentCompletion, now: UInt64) -> Bool {
        discard(completion.key)
        completions.append(completion)
        if oldestReportAt == nil { oldestReportAt = now }
        return shouldFlush(now: now)
    }

    /// Whether the batch is due at `now`: enough segments, or the oldest report old enough.
    public func shouldFlush(now: UInt64) -> Bool {
        guard let deadline = flushDeadline else { return false }
        return isOverdue || pendingCount >= configuration.maximumPending || now >= deadline
    }

    /// Forgets the pending progress report of `key` (e.g. its segment was just committed).
    public mutating func discard(_ key: SegmentRecord.Key) {
        guard pending.removeValue(forKey: key) != nil else { return }
        order.removeAll { $0 == key }
        if isEmpty {
            oldestReportAt = nil
            isOverdue = false
        }
    }

    /// Takes the pending reports (one per segment, in the order of their first report)
    /// and completions (in order), and starts a new batch.
    public mutating func drain() -> Batch {
        let batch = Batch(progress: order.compactMap { pending[$0] }, completions: completions)
        pending.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        completions.removeAll(keepingCapacity: true)
        oldestReportAt = nil
        isOverdue = false
        return batch
    }

    /// Puts back `batch`, drained earlier and not written (its write failed), under
    /// what arrived since: a newer report or completion of the same segment wins, and a
    /// completion drops the segment's progress. The batch is due again at once.
    public mutating func restore(_ batch: Batch, now: UInt64) {
        let newerCompletions = Set(completions.map(\.key))
        let older = batch.completions.filter { !newerCompletions.contains($0.key) }
        for completion in older { discard(completion.key) }
        completions = older + completions
        let completed = newerCompletions.union(older.map(\.key))
        for update in batch.progress where pending[update.key] == nil && !completed.contains(update.key) {
            pending[update.key] = update
            order.append(update.key)
        }
        if oldestReportAt == nil, !isEmpty { oldestReportAt = now }
        isOverdue = !isEmpty
    }

    /// What one index write records.
    public struct Batch: Sendable, Hashable {
        /// Bytes (and ETag, length) of segments still downloading.
        public var progress: [SegmentProgress]
        /// Segments committed.
        public var completions: [SegmentCompletion]

        /// Creates a batch.
        public init(progress: [SegmentProgress] = [], completions: [SegmentCompletion] = []) {
            self.progress = progress
            self.completions = completions
        }

        /// Nothing to write.
        public var isEmpty: Bool { progress.isEmpty && completions.isEmpty }
    }
}

/// A segment whose `.part` file was synced and renamed into place: what
/// `DownloadIndex.record(_:)` marks complete.
public struct SegmentCompletion: Sendable, Hashable {
    /// The segment.
    public var key: SegmentRecord.Key
    /// The final file's size.
    public var bytes: Int64
    /// The final file's SHA-256, lowercase hex.
    public var sha256: String?
    /// The origin's ETag, when it sent one.
    public var etag: String?

    /// Creates a completion.
    public init(key: SegmentRecord.Key, bytes: Int64, sha256: String?, etag: String?) {
        self.key = key
        self.bytes = bytes
        self.sha256 = sha256
        self.etag = etag
    }
}
