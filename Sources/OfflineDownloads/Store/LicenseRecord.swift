import Foundation
import GRDB

/// The license of a download: a row of the `license` table, one per download,
/// removed with the download.
///
/// Saved by the engine after a license exchange (`DownloadIndex.saveLicense`), read
/// when the video plays offline or its expiry is asked for. The raw signed license is
/// kept so that its signature can be verified again; the other fields are what the
/// engine read from it.
public struct LicenseRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    /// The table's name.
    public static let databaseTableName = "license"

    /// The license's terms.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// Never expires.
        case purchase
        /// Expires at `expiresAt`, or `playDurationSeconds` after the first playback,
        /// whichever comes first.
        case rental

        /// The raw value, e.g. `rental`.
        public var description: String { rawValue }
    }

    /// The download's token.
    public var token: String
    /// The asset the license is for.
    public var assetID: String
    /// The content key's identifier.
    public var keyID: String
    /// The content key.
    public var contentKey: Data
    /// The terms.
    public var kind: Kind
    /// When the license server issued the license.
    public var issuedAt: Date
    /// When the license expires; nil for a purchase.
    public var expiresAt: Date?
    /// How long playback may go on after the first playback, for a rental with a play duration.
    public var playDurationSeconds: Int64?
    /// When the video was first played with this license, if it was.
    public var firstPlayedAt: Date?
    /// The signed license exactly as the server sent it (JSON bytes).
    public var signedLicense: Data

    /// Creates a record.
    public init(
        token: String, assetID: String, keyID: String, contentKey: Data, kind: Kind, issuedAt: Date,
        expiresAt: Date? = nil, playDurationSeconds: Int64? = nil, firstPlayedAt: Date? = nil,
        signedLicense: Data
    ) {
        self.token = token
        self.assetID = assetID
        self.keyID = keyID
        self.contentKey = contentKey
        self.kind = kind
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.playDurationSeconds = playDurationSeconds
        self.firstPlayedAt = firstPlayedAt
        self.signedLicense = signedLicense
    }
}
