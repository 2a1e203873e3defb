import BenchCore
import Foundation

/// What a running `TransferWorker` tells the download manager, in the order it happens.
///
/// The flow is one way: a worker only enqueues its reports (`TransferReporter`) and
/// never waits for the manager, which takes them from one queue (`TransferReports`) in
/// one place (`DownloadManager.take(_:)`, deciding with `DownloadEntry.take(_:from:)`)
/// and feeds the state machine. A worker's last report is `.finished` or `.failed`,
/// exactly one of them (`TransferWorker.run()` sends it once, at its end).
enum TransferReport: Sendable, Hashable {
    /// The plan is stored and the segments are as the disk has them (reconciled).
    case planned(PlannedTransfer)
    /// One segment is committed (synced, renamed); its record is batched.
    case segmentStored(StoredSegment)
    /// Every segment and image is stored and recorded: the manager writes the complete
    /// offline package from this plan, then the download is complete.
    case finished(DownloadPlan)
    /// The transfer stopped on this failure; the manager decides what it means.
    case failed(TransferFailure)

    /// `.finished` or `.failed`: the transfer's last report.
    var isLast: Bool {
        switch self {
        case .finished, .failed: true
        case .planned, .segmentStored: false
        }
    }
}

/// What a transfer found when it started: the plan's selection and estimated size, and
/// the segments as the disk has them.
struct PlannedTransfer: Sendable, Hashable {
    var selection: StoredSelection
    var bytesExpected: Int64?
    var segmentCount: Int
    /// Completed segments only: a resumed `.part` counts once it completes.
    var completedSegments: Int
    /// The bytes of the completed segments.
    var bytesStored: Int64

    /// The summary of `segments` (reconciled with the disk).
    init(selection: StoredSelection, bytesExpected: Int64?, segments: [SegmentRecord]) {
        let complete = segments.filter { $0.state == .complete }
        self.selection = selection
        self.bytesExpected = bytesExpected
        segmentCount = segments.count
        completedSegments = complete.count
        bytesStored = complete.reduce(0) { $0 + $1.bytes }
    }
}

/// One committed segment, with the progress of its stream.
struct StoredSegment: Sendable, Hashable {
    var stream: String
    var index: Int
    var bytes: Int64
    var uri: String
    /// Completed segments of `stream` over all of them, this one included.
    var streamFraction: Double
    /// The transfer had already failed and was letting the fetches under way finish.
    var draining: Bool
}

/// A report with where it comes from: the download and which of its transfers (the
/// manager counts a transfer stopped once its id is no longer the download's).
struct TaggedTransferReport: Sendable {
    var token: DownloadToken
    var transferID: Int
    var report: TransferReport
}

/// The one queue from every transfer to the manager. Owned by the manager, which reads
/// `stream` with a single consumer and hands each worker a `reporter(for:transferID:)`.
/// Unbounded and in order: a worker's reports arrive as it sent them.
struct TransferReports: Sendable {
    let stream: AsyncStream<TaggedTransferReport>
    private let continuation: AsyncStream<TaggedTransferReport>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: TaggedTransferReport.self)
    }

    /// The sending end for one transfer: tags what it sends with `token` and `transferID`.
    func reporter(for token: DownloadToken, transferID: Int) -> TransferReporter {
        TransferReporter(token: token, transferID: transferID, continuation: continuation)
    }

    /// Ends the queue (at shutdown): what is queued is still read, then the consumer ends.
    func finish() {
        continuation.finish()
    }
}

/// How a worker reports: enqueues, never waits.
struct TransferReporter: Sendable {
    let token: DownloadToken
    let transferID: Int
    fileprivate let continuation: AsyncStream<TaggedTransferReport>.Continuation

    func send(_ report: TransferReport) {
        continuation.yield(TaggedTransferReport(token: token, transferID: transferID, report: report))
    }
}

/// Why a transfer stopped.
enum TransferFailure: Error, Hashable, CustomStringConvertible {
    case transport(TransportError)
    case lowStorage(free: Int64)
    case playlist(String)
    case index(String)
    /// The license exchange the transfer waited for ended without the license, for a
    /// passing reason (a refusal fails the download when the exchange ends, which stops
    /// the transfer and makes this report stale); `network` when the network let it
    /// down (no usable interface, a captive portal, a connection lost).
    case license(String, network: Bool = false)

    var description: String {
        switch self {
        case .transport(let error): "\(error)"
        case .lowStorage(let free): "only \(free) bytes free, under the storage cushion"
        case .playlist(let why): why
        case .index(let why): why
        case .license(let why, _): "no license yet: \(why)"
        }
    }
}
