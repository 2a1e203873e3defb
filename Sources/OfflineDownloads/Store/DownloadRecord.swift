import Foundation
import GRDB

/// One download as the index keeps it: a row of the `download` table.
///
/// Written by the engine when a download is requested, then on every `.persist`
/// action of its state machine (`DownloadIndex.updateSnapshot`); read back at
/// start-up (`DownloadIndex.downloads()`). A value: the engine owns its copies, the
/// index owns the row. Dates are stored as UTC text with millisecond precision
/// (GRDB's default), so a date read back equals the one written to the millisecond.
public struct DownloadRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    /// The table's name.
    public static let databaseTableName = "download"

    /// The persistent token that names the download across launches (opaque, e.g. a UUID string).
    public var token: String
    /// The catalog's identifier of the video.
    public var videoID: String
    /// The remote master playlist's URL.
    public var masterURL: String
    /// A name for people (the video's title).
    public var displayName: String
    /// What the app asked for (JSON column).
    public var parameters: StoredParameters
    /// The renditions chosen for the download (JSON column).
    public var selection: StoredSelection
    /// The state machine's durable state (JSON column), written for every `.persist` action.
    public var snapshot: DownloadStateMachine.Snapshot
    /// When the app requested the download.
    public var requestedAt: Date
    /// When the first media byte was requested, if it was.
    public var startedAt: Date?
    /// When the download ended `downloaded` or `failed`, if it did.
    public var finishedAt: Date?
    /// When a license was last requested for this download, if one was.
    public var licenseRequestedAt: Date?
    /// The bytes stored in the download's segments. Kept equal to the sum of its
    /// segments' `bytes` by every segment write of `DownloadIndex`.
    public var bytesDownloaded: Int64
    /// The size the engine expects the whole download to have, once it knows it.
    public var bytesExpected: Int64?
    /// The last error met, in words, for people.
    public var errorMessage: String?
    /// The package directory, relative to the engine's downloads directory.
    public var packageDirectory: String

    /// Creates a record; the optional fields start empty.
    public init(
        token: String, videoID: String, masterURL: String, displayName: String,
        parameters: StoredParameters, selection: StoredSelection, snapshot: DownloadStateMachine.Snapshot,
        requestedAt: Date, startedAt: Date? = nil, finishedAt: Date? = nil, licenseRequestedAt: Date? = nil,
        bytesDownloaded: Int64 = 0, bytesExpected: Int64? = nil, errorMessage: String? = nil,
        packageDirectory: String
    ) {
        self.token = token
        self.videoID = videoID
        self.masterURL = masterURL
        self.displayName = displayName
        self.parameters = parameters
        self.selection = selection
        self.snapshot = snapshot
        self.requestedAt = requestedAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.licenseRequestedAt = licenseRequestedAt
        self.bytesDownloaded = bytesDownloaded
        self.bytesExpected = bytesExpected
        self.errorMessage = errorMessage
        self.packageDirectory = packageDirectory
    }
}

/// The download parameters as the index keeps them (a JSON column of `DownloadRecord`).
///
/// The engine maps its own parameters type to this one, so that the index's format
/// does not change when the public API does. Durations are whole seconds.
public struct StoredParameters: Sendable, Hashable, Codable {
    /// The license terms asked for.
    public var licenseKind: LicenseRecord.Kind
    /// How long a rental lasts from the license's issue, for a rental.
    public var rentalDurationSeconds: Int64?
    /// How long a rental lasts from the first playback, for a rental.
    public var playDurationSeconds: Int64?
    /// The bitrate asked for, in bits per second; nil for the lowest variant with video.
    public var requestedBitrate: Int?
    /// Whether the download may use cellular.
    public var allowsCellular: Bool
    /// When the download itself expires and is evicted (a caching expiry, independent
    /// of the license); nil for never. Absent from records written before it existed.
    public var expiresAt: Date?

    /// Creates parameters; by default a purchase at the lowest bitrate, WiFi only.
    public init(
        licenseKind: LicenseRecord.Kind = .purchase, rentalDurationSeconds: Int64? = nil,
        playDurationSeconds: Int64? = nil, requestedBitrate: Int? = nil, allowsCellular: Bool = false,
        expiresAt: Date? = nil
    ) {
        self.expiresAt = expiresAt
        self.licenseKind = licenseKind
        self.rentalDurationSeconds = rentalDurationSeconds
        self.playDurationSeconds = playDurationSeconds
        self.requestedBitrate = requestedBitrate
        self.allowsCellular = allowsCellular
    }
}

/// The renditions chosen for a download (a JSON column of `DownloadRecord`).
public struct StoredSelection: Sendable, Hashable, Codable {
    /// The chosen variant playlist's URI, as the master playlist writes it.
    public var variantURI: String
    /// The chosen variant's `BANDWIDTH`, in bits per second.
    public var bandwidth: Int
    /// The audio renditions' languages (e.g. `["en", "fr"]`), in the app's order.
    public var audioLanguages: [String]
    /// The subtitle renditions' languages, in the app's order.
    public var subtitleLanguages: [String]

    /// Creates a selection; by default with no alternative audio nor subtitles.
    public init(variantURI: String, bandwidth: Int, audioLanguages: [String] = [], subtitleLanguages: [String] = []) {
        self.variantURI = variantURI
        self.bandwidth = bandwidth
        self.audioLanguages = audioLanguages
        self.subtitleLanguages = subtitleLanguages
    }
}
