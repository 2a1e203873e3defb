import BenchCore
import Foundation
import OfflineDownloads

/// What the agent process (`bench agent`, the engine in "the app") reports, one JSON
/// line each, stamped with its own monotonic clock. Downloads are named by token.
public enum AgentEvent: Sendable, Hashable, Codable {
    /// The agent started its engine, told how the previous process ended.
    case launched(pid: Int32, after: ProcessTermination)
    /// A download changed state (the engine's `stateChanged`).
    case stateChanged(download: String, from: DownloadState, to: DownloadState)
    /// Progress of one media selection, 0…1.
    case progress(download: String, selection: String, fraction: Double)
    /// A segment was committed and recorded in the index; `path` is the origin path
    /// it came from (e.g. `/videos/clear/400k/seg3.ts`), to match the origin's log.
    case segmentStored(download: String, stream: String, index: Int, bytes: Int64, path: String)
    /// A license was acquired and persisted (the engine reports it after the index write).
    case licenseAcquired(download: String, expiration: Date)
    case licenseRenewed(download: String, expiration: Date)
    case licenseFailed(download: String, reason: String)
    /// Every segment is stored; the package is at `package`.
    case finished(download: String, package: String)
    /// The download's own expiry passed and it was removed.
    case evicted(download: String)
    /// An engine error event.
    case error(download: String?, message: String)
    /// At launch, what the agent found before its engine started: every segment whose
    /// bytes are partly in a `.part` file, as the engine's start-up reconciliation
    /// (`PackageFiles.reconcile`) sees them. The engine must resume each with a Range
    /// request from `bytes`. Written right after `launched`; empty when there are none.
    case partialSegmentsFound([AgentPartialSegment])
    /// The agent's answer to what it found when asked (`AgentCommand.inspect`):
    /// files and license of a download, and whether the offline video plays.
    case inspected(AgentInspection)
}

/// What the agent found about one download when the harness asked.
public struct AgentInspection: Sendable, Hashable, Codable {
    public var download: String
    /// The engine still knows the token.
    public var known: Bool
    public var state: DownloadState?
    /// Files under the download's package directory (0 when it is gone).
    public var files: Int
    /// Whether a license is stored (nil expiration means none).
    public var licenseExpiration: Date?
    /// `offlineVideo(token).playableOffline`, and why not.
    public var playable: Bool
    public var unplayableReason: String?
    /// SHA-256 of each stored segment file, keyed by the origin path it came from
    /// (e.g. `/videos/clear/400k/seg3.ts`), to compare with the origin's hash manifest.
    public var segmentHashes: [String: String]
    /// Every URI in the package's local playlists names a file present in the
    /// package (nothing remote): the package plays with the network down.
    public var packageComplete: Bool

    public init(
        download: String, known: Bool, state: DownloadState?, files: Int, licenseExpiration: Date?, playable: Bool,
        unplayableReason: String?, segmentHashes: [String: String], packageComplete: Bool
    ) {
        self.packageComplete = packageComplete
        self.download = download
        self.known = known
        self.state = state
        self.files = files
        self.licenseExpiration = licenseExpiration
        self.playable = playable
        self.unplayableReason = unplayableReason
        self.segmentHashes = segmentHashes
    }
}

/// A segment the agent found partly stored at launch (`AgentEvent.partialSegmentsFound`).
public struct AgentPartialSegment: Sendable, Hashable, Codable {
    public var download: String
    public var stream: String
    public var index: Int
    /// The origin path it is fetched from (e.g. `/videos/clear/400k/seg3.ts`).
    public var path: String
    /// The bytes in its `.part` file that the engine keeps (more than 0).
    public var bytes: Int64
    /// The segment's own `Range` header when it is a byte range of `path`
    /// (`bytes=a-b`); nil for a whole resource.
    public var byteRange: String?

    /// Creates a report of one partial segment.
    public init(download: String, stream: String, index: Int, path: String, bytes: Int64, byteRange: String? = nil) {
        self.download = download
        self.stream = stream
        self.index = index
        self.path = path
        self.bytes = bytes
        self.byteRange = byteRange
    }
}
