import BenchCore
import Synchronization

/// The index writes of one transfer, batched by a `ProgressBatcher`: partial bytes
/// reported from the HTTP client's threads and completions from the transfer, written
/// together in one transaction when the batch falls due.
///
/// Owned by one `TransferWorker`. `report` and `complete` may be called from any
/// thread (they only take a lock); `flush` is called by the worker's own loop only,
/// one at a time, so batches reach the index in order.
final class ProgressRecorder: Sendable {
    private let index: DownloadIndex
    private let clock: any TraceClock
    private let batcher: Mutex<ProgressBatcher>

    init(index: DownloadIndex, clock: any TraceClock, configuration: ProgressBatcher.Configuration) {
        self.index = index
        self.clock = clock
        batcher = Mutex(ProgressBatcher(configuration: configuration))
    }

    /// How often the worker looks whether a batch fell due by time.
    var interval: Duration {
        .nanoseconds(Int64(clamping: batcher.withLock { $0.configuration.maximumDelayNanoseconds }))
    }

    /// Bytes (and ETag) of a segment still downloading.
    func report(_ progress: SegmentProgress) {
        let now = clock.nowNanoseconds
        batcher.withLock { _ = $0.add(progress, now: now) }
    }

    /// A segment committed (synced and renamed): to be recorded complete.
    func complete(_ completion: SegmentCompletion) {
        let now = clock.nowNanoseconds
        batcher.withLock { _ = $0.add(completion, now: now) }
    }

    /// Whether the batch is due now.
    var isDue: Bool {
        let now = clock.nowNanoseconds
        return batcher.withLock { $0.shouldFlush(now: now) }
    }

    /// Writes what is pending (nothing when nothing is). A batch whose write fails
    /// (e.g. refused because the task was cancelled) is put back, so a later flush
    /// still records it.
    func flush() async throws(IndexError) {
        let batch = batcher.withLock { $0.drain() }
        guard !batch.isEmpty else { return }
        do { try await index.record(batch) } catch {
            let now = clock.nowNanoseconds
            batcher.withLock { $0.restore(batch, now: now) }
            throw error
        }
    }
}
