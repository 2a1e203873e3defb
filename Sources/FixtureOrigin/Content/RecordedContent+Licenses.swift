import BenchCore
import Crypto

/// An `skd://ASSET/KEY` key URI a recorded stream's playlists name (FairPlay), as the
/// fixture license server answers it: a license request names the URI's host as its
/// asset id and its path (without the `/`) as its key id, as for the fixture's `skd`
/// videos (`Catalog.keyURI(for:)`). The recording holds no key for it (a FairPlay key
/// server answers a device's SPC, which nothing here can make), so the content key is
/// made up, deterministically, from the asset and key ids.
///
/// The license is this bench's own protocol (`LicenseServer`), not Apple's: a real
/// FairPlay client (AVContentKeySession on a device) cannot use it. It is for judging the
/// download's order (license before the background, before encrypted segments), not for
/// playing; the recorded segments stay as recorded.
public struct RecordedLicenseKey: Hashable, Sendable {
    /// The URI as the playlist names it.
    public var uri: String
    /// The license request's `asset_id`: the URI's host.
    public var assetID: String
    /// The license request's `key_id`: the URI's path, without its `/`.
    public var keyID: String

    /// The parts of `uri`; nil unless it is `skd://` (any case) then two non-empty
    /// components separated by one `/`, what Deadzone's engine and the judge read
    /// (a host-only `skd://asset`, or a longer path, names no key this server answers).
    public init?(uri: String) {
        let scheme = "skd://"
        guard uri.count > scheme.count, uri.prefix(scheme.count).lowercased() == scheme else { return nil }
        let parts = uri.dropFirst(scheme.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        self.uri = uri
        assetID = String(parts[0])
        keyID = String(parts[1])
    }

    /// The 16-byte content key the license carries: the first 16 bytes of the SHA-256 of
    /// a label, the asset id and the key id. The same on every run and machine.
    public var contentKey: [UInt8] {
        Array(SHA256.hash(data: Array("deadzone.recorded-content-key\u{0}\(assetID)\u{0}\(keyID)".utf8)).prefix(16))
    }
}

extension RecordedContent {
    /// The `skd://` keys of `stream` that the license server answers, in the order its
    /// manifest lists them, each once (its other `license_keys`, `data:` URIs and
    /// `skd://` URIs of another form, are named by no license).
    public func licenseKeys(of stream: Stream) -> [RecordedLicenseKey] {
        var keys: [RecordedLicenseKey] = []
        for key in stream.video.licenseKeys.compactMap(RecordedLicenseKey.init(uri:)) where !keys.contains(key) {
            keys.append(key)
        }
        return keys
    }

    /// What the license server answers for (`assetID`, `keyID`) from the recorded
    /// streams: the key when one names that pair, `.unknownKey` when one names the asset
    /// with other keys only, nil when none names the asset (the fixture catalog decides).
    public func licenseLookup(assetID: String, keyID: String) -> LicenseKeyLookup? {
        let keys = streams.flatMap(licenseKeys(of:)).filter { $0.assetID == assetID }
        guard !keys.isEmpty else { return nil }
        return keys.first { $0.keyID == keyID }.map { .key($0.contentKey) } ?? .unknownKey
    }

    /// The catalog API's document of `stream`: its source at `sourceURL(of:)`, no
    /// thumbnail or text tracks of the API's own (the subtitles are in the playlists),
    /// offline-enabled, and for each of its answered `skd://` keys (`licenseKeys(of:)`) a
    /// FairPlay key system naming the license server's certificate and license paths of
    /// `configuration` and the key URI, as a fixture `skd` video's document does.
    public func document(of stream: Stream, in configuration: CatalogConfiguration) -> VideoDocument {
        let keys = licenseKeys(of: stream)
        let systems = keys.map { key in
            KeySystemDocument(
                name: "com.apple.fps.1_0", certificateURL: configuration.certificatePath,
                licenseURL: configuration.licensePath, keyURI: key.uri)
        }
        return VideoDocument(
            id: stream.video.id, name: stream.video.name, duration: stream.video.duration, poster: stream.posterPath ?? "",
            thumbnail: "", textTracks: [], offlineEnabled: true,
            sources: [SourceDocument(
                url: sourceURL(of: stream), type: SourceDocument.hlsType, keySystems: keys.isEmpty ? nil : systems)])
    }
}
