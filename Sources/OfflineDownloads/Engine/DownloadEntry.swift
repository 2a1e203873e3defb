import BenchCore
import Foundation

/// What the manager keeps per download: its record, its state machine, and the tasks
/// working for it (transfer, license exchange, retry timer).
struct DownloadEntry {
    var record: DownloadRecord
    /// The catalog entry, kept as `video.json` in the package (license endpoints, names).
    var video: CatalogVideo?
    var machine: DownloadStateMachine
    var retry: RetryBackoff
    var transfer: Task<Void, Never>?
    /// The last transfer stopped: a cancel waits for it to end before removing the
    /// package, so that a write it was making cannot create the package again.
    var stoppedTransfer: Task<Void, Never>?
    /// Distinguishes reports of the current transfer from those of a stopped one.
    var transferID = 0
    /// The license exchange under way (`DownloadManager.startLicense`).
    var license: LicenseExchange?
    var retryTimer: Task<Void, Never>?
    /// The automatic renewal of a rental, armed only in the foreground.
    var renewalTimer: Task<Void, Never>?
    /// An automatic renewal's exchange under way, true when it renewed
    /// (`prepareForBackground` waits for it).
    var renewalExchange: Task<Bool, Never>?
    /// How the next `scheduleRetry` counts: network failures retry without bound,
    /// server errors (5xx, 429) are bounded.
    var nextRetryKind: RetryBackoff.FailureKind = .network
    var lastError = "network"
    /// Why the last license exchange failed, if it did.
    var licenseError: String?
    /// Progress per media selection, never decreasing.
    var progress: [String: Double] = [:]
    var segmentCount = 0
    var completedSegments = 0

    var token: DownloadToken { DownloadToken(record.token) }

    /// Completed segments over all segments.
    var overallProgress: Double {
        if machine.state == .downloaded { return 1 }
        return segmentCount == 0 ? 0 : Double(completedSegments) / Double(segmentCount)
    }

    mutating func stopTransfer() {
        transfer?.cancel()
        if let transfer { stoppedTransfer = transfer }
        transfer = nil
        transferID += 1
    }

    mutating func stopAll() {
        stopTransfer()
        license?.cancel()
        license = nil
        retryTimer?.cancel()
        retryTimer = nil
        renewalTimer?.cancel()
        renewalTimer = nil
    }
}
