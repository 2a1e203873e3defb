import Foundation

/// What the app reports, whenever it happens: `{"type":"event","t":…,"name":…,…}`.
/// Downloads are named by the id the app answered to `request`. Every event is a claim
/// the harness checks against the evidence.
public enum AppEvent: Sendable, Hashable {
    /// The app started, told how the previous process ended (after answering `hello`).
    case launched(pid: Int32, after: RelaunchKind)
    /// A download changed state.
    case stateChanged(download: String, from: AppState, to: AppState)
    /// Progress of one media selection of a download (`video`, `audio_fr`…), 0…1.
    case progress(download: String, selection: String, fraction: Double)
    /// A segment was stored for good; `path` is the origin path it came from.
    case segmentStored(download: String, stream: String, index: Int, bytes: Int64, path: String)
    /// A license was acquired and stored, valid until `expiration`.
    case licenseAcquired(download: String, expiration: Date)
    case licenseRenewed(download: String, expiration: Date)
    case licenseFailed(download: String, reason: String)
    /// Every segment is stored; the offline package's master playlist is at `package`.
    case finished(download: String, package: String)
    /// The download's own expiry passed and it was removed.
    case evicted(download: String)
    /// An error of the app, about a download or not.
    case error(download: String?, message: String)
    /// At launch: the segments the app found partly stored and will resume.
    case partialSegmentsFound([AppPartialSegment])

    /// The event's name on the wire, e.g. `stateChanged`.
    public var name: String {
        switch self {
        case .launched: "launched"
        case .stateChanged: "stateChanged"
        case .progress: "progress"
        case .segmentStored: "segmentStored"
        case .licenseAcquired: "licenseAcquired"
        case .licenseRenewed: "licenseRenewed"
        case .licenseFailed: "licenseFailed"
        case .finished: "finished"
        case .evicted: "evicted"
        case .error: "error"
        case .partialSegmentsFound: "partialSegmentsFound"
        }
    }

    /// The download the event is about, if any.
    public var download: String? {
        switch self {
        case .launched, .partialSegmentsFound: nil
        case .stateChanged(let d, _, _), .progress(let d, _, _), .segmentStored(let d, _, _, _, _),
            .licenseAcquired(let d, _), .licenseRenewed(let d, _), .licenseFailed(let d, _), .finished(let d, _),
            .evicted(let d):
            d
        case .error(let d, _): d
        }
    }
}

/// A segment the app found partly stored when it launched (`partialSegmentsFound`).
public struct AppPartialSegment: Sendable, Hashable, Codable {
    public var download: String
    public var stream: String
    public var index: Int
    /// The origin path it is fetched from (e.g. `/videos/clear/400k/seg3.ts`).
    public var path: String
    /// The bytes the app keeps and resumes after.
    public var bytes: Int64
    /// The segment's own range of `path` (`bytes=a-b`), nil for a whole resource.
    public var byteRange: String?

    /// A partial segment.
    public init(download: String, stream: String, index: Int, path: String, bytes: Int64, byteRange: String? = nil) {
        self.download = download
        self.stream = stream
        self.index = index
        self.path = path
        self.bytes = bytes
        self.byteRange = byteRange
    }
}
