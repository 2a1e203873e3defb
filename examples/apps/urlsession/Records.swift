import DeadzoneKit
import Foundation

/// What the user asked for, as the index keeps it (the catalog entry as the harness sent it).
struct StoredRequest: Codable, Sendable {
    var videoJSON: Data
    var catalogURL: URL
    var allowsCellular: Bool
    var rentalSeconds: Double?
    var audioLanguages: [String]
    var subtitleLanguages: [String]

    /// The catalog entry, decoded again from what the harness sent.
    func video() throws -> CatalogVideo { try JSONDecoder().decode(CatalogVideo.self, from: videoJSON) }

    /// `path` of the catalog entry resolved against `catalogURL`, as a browser resolves a link.
    func resolve(_ path: String) -> URL? { URL(string: path, relativeTo: catalogURL)?.absoluteURL }
}

/// A license the license server issued (the fields this app keeps).
struct License: Codable, Sendable {
    var assetID: String
    var keyID: String
    var nonce: String
    var contentKey: String
    var issuedAt: Double?
    var expiresAt: Double?
    enum CodingKeys: String, CodingKey {
        case assetID = "asset_id", keyID = "key_id", nonce, contentKey = "content_key"
        case issuedAt = "issued_at", expiresAt = "expires_at"
    }
}

/// One key, init section or segment to fetch into the package.
struct Resource: Codable, Sendable, Equatable {
    var url: URL
    /// The origin path (how the harness knows it).
    var path: String
    /// Its path in the package directory.
    var local: String
    /// `video`, `audio_fr`…, `keys` or `init`.
    var stream: String
    /// Its position in its media playlist, from 0 (a key's or init section's number).
    var index: Int
    /// The range of `url` it is; nil for all of it (and in an index written before ranges).
    var byteRange: ByteRange?
}

/// What a download fetches, known once its playlists were read: keys and init sections
/// first, then segments.
struct Plan: Codable, Sendable {
    var resources: [Resource]
    /// Segments per selection, for progress.
    var selections: [String: Int]
}

/// One download as the index keeps it: it survives a SIGKILL.
struct DownloadRecord: Codable, Sendable {
    var token: String
    var request: StoredRequest
    var state: DownloadState
    var plan: Plan?
    var license: License?
    var requestedAt: Date
}

/// The key system of a protected video: a FairPlay-style license exchange.
struct LicenseSystem: Sendable {
    var certificateURL: URL
    var licenseURL: URL
    var assetID: String
    var keyID: String
}

extension DownloadRecord {
    /// The master playlist's URL.
    func masterURL() throws -> URL {
        guard let source = try request.video().hlsSource, let url = request.resolve(source.url) else {
            throw PlaylistError("the catalog entry has no source")
        }
        return url
    }

    /// The license exchange this video needs, nil when it is clear.
    var licenseSystem: LicenseSystem? {
        guard let video = try? request.video() else { return nil }
        for system in video.sources.flatMap({ $0.keySystems ?? [] }) {
            guard let keyURI = system.keyURI, keyURI.hasPrefix("skd://"),
                  let certificate = system.certificateURL.flatMap(request.resolve),
                  let license = system.licenseURL.flatMap(request.resolve)
            else { continue }
            let parts = keyURI.dropFirst("skd://".count).split(separator: "/", maxSplits: 1)
            return LicenseSystem(
                certificateURL: certificate, licenseURL: license, assetID: parts.first.map(String.init) ?? "",
                keyID: parts.count > 1 ? String(parts[1]) : "")
        }
        return nil
    }

    /// Whether it still needs a license before its segments.
    var needsLicense: Bool { license == nil && licenseSystem != nil }

    /// When playback stops being allowed; nil: never (or no license yet).
    var expiration: Date? {
        if licenseSystem != nil { return license?.expiresAt.map { Date(timeIntervalSince1970: $0) } }
        return request.rentalSeconds.map { requestedAt.addingTimeInterval($0) }
    }
}
