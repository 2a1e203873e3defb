import BenchCore
import Foundation

/// An opaque, persistent identifier of one download, the same across launches.
public struct DownloadToken: Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// A token from its stored text.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}

/// Where a download stands, as the app sees it.
public struct DownloadStatus: Sendable, Hashable, Codable {
    public var token: DownloadToken
    public var videoID: String
    public var state: DownloadState
    /// Why it is suspended, when it is.
    public var suspensionReason: SuspensionReason? { state.suspensionReason }
    public var requestedAt: Date
    public var startedAt: Date?
    /// When the download ended, `downloaded` or `failed` (`EngineConfiguration.now` at
    /// that transition, kept in the index); nil while it is in flight. A cancel or a
    /// delete ends with no status left: its end is `EngineEvent.removed`.
    public var finishedAt: Date?
    public var licenseRequestedAt: Date?
    /// Bytes stored so far.
    public var bytesDownloaded: Int64
    /// Bytes expected in all, when known (estimate from BANDWIDTH before lengths are).
    public var bytesExpected: Int64?
    /// 0…1: completed segments over all segments (0 before the plan exists).
    public var progress: Double
    /// Why it failed, when it did.
    public var failure: DownloadFailure?
    /// When the download is evicted (`DownloadParameters.expiresAt`), if ever.
    public var expiresAt: Date?
}

/// What the engine tells the app, in order, on `DownloadManager.events`.
public enum EngineEvent: Sendable, Hashable {
    case stateChanged(DownloadToken, from: DownloadState, to: DownloadState)
    /// Progress of one media selection (`video`, `audio_fr`, `subs_de`), 0…1, never decreasing.
    case progress(DownloadToken, selection: String, fraction: Double)
    case licenseAcquired(DownloadToken, expiration: Date)
    case licenseRenewed(DownloadToken, expiration: Date)
    case licenseFailed(DownloadToken, reason: String)
    /// A segment was committed and recorded; `uri` is the absolute URL it came from.
    case segmentStored(DownloadToken, stream: String, index: Int, bytes: Int64, uri: String)
    case finished(DownloadToken, package: URL)
    /// The download's own expiry date passed: its files, license and record are gone
    /// (after `stateChanged` to `notDownloaded`).
    case evicted(DownloadToken, expiredAt: Date)
    /// A cancel, delete or eviction finished: the download's files, license and record
    /// are gone and `status` no longer knows it. `at` is when (`EngineConfiguration.now`):
    /// the end time of a download that did not end `downloaded` or `failed` (those keep
    /// theirs in `DownloadStatus.finishedAt`). Right after its `stateChanged` to
    /// `notDownloaded`.
    case removed(DownloadToken, at: Date)
    case error(DownloadToken?, message: String)
}

/// Why an engine call was refused. Each says what to do.
public enum EngineError: Error, Hashable, Sendable, CustomStringConvertible {
    case notOfflineEnabled(videoID: String)
    case unknownToken(DownloadToken)
    case noSource(videoID: String)
    case notPermitted(String)
    case offline(String)
    case index(String)
    case license(String)

    /// Whether the network let the call down (`offline`): the engine retries such a
    /// failure as it does an outage, without bound.
    var isOffline: Bool {
        if case .offline = self { return true }
        return false
    }

    /// Whether a license exchange waited for the foreground (the app was, or went, to the
    /// background): retried without bound, like an outage, never counted as a server
    /// error; the download waits in `suspended(awaitingForeground)` meanwhile.
    var isLicenseInBackground: Bool {
        if case .license(let reason) = self { return reason.hasPrefix(DownloadManager.backgroundPrefix) }
        return false
    }

    public var description: String {
        switch self {
        case .notOfflineEnabled(let id): "video \(id) is not offline-enabled (offline_enabled is false); it can only be streamed"
        case .unknownToken(let token): "no download has the token \(token); list them with `tokens`"
        case .noSource(let id): "video \(id) has no HLS source in its catalog entry"
        case .notPermitted(let why): why
        case .offline(let why): "this needs the network, and none is usable: \(why)"
        case .index(let why): "the download index failed: \(why)"
        case .license(let why): why
        }
    }
}

/// A downloaded (or downloading) video, for playback.
public struct OfflineVideo: Sendable, Hashable {
    public var token: DownloadToken
    public var videoID: String
    public var displayName: String
    /// Complete — every file of the package still on disk, whole — and its license
    /// (if any) valid now.
    public var playableOffline: Bool
    /// Why it is not playable, when it is not (e.g. "license expired", or
    /// "package incomplete: 2 files missing (…)" when files were removed behind the
    /// engine's back; the engine does not fetch a complete package again: delete the
    /// download and request it again).
    public var unplayableReason: String?
    /// The local master playlist (present once the plan exists; partial while downloading).
    public var masterPlaylist: URL
    /// Subtitle sideband files by language.
    public var subtitles: [String: URL]
    public var licenseExpiration: Date?
    /// The catalog's poster, stored in the package (`poster.png`); nil until it is
    /// stored, when the origin had none (`PackageArtwork`: the images are optional),
    /// or when its file is no longer on disk.
    public var poster: URL?
    /// The catalog's thumbnail, stored in the package (`thumbnail.png`); nil as `poster`.
    public var thumbnail: URL?
}
