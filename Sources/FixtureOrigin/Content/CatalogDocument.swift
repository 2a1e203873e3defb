/// The JSON bodies of the catalog API (`GET /videos` and `GET /videos/{id}`).
///
/// Keys are snake_case through explicit `CodingKeys`, so any `JSONEncoder` writes the
/// same shape. URLs are absolute paths on the origin (`/videos/clear/poster.png`):
/// relative references with no scheme or host, so the same catalog works behind any
/// address or proxy. Durations are in seconds.
public struct VideoDocument: Hashable, Sendable, Codable {
    /// The video id.
    public var id: String
    /// The title.
    public var name: String
    /// Duration in seconds.
    public var duration: Double
    /// Path of the 320×180 poster PNG.
    public var poster: String
    /// Path of the 160×90 thumbnail PNG.
    public var thumbnail: String
    /// Subtitle tracks.
    public var textTracks: [TextTrackDocument]
    /// Whether the video may be downloaded (what the app's `canBeDownloaded` reads).
    public var offlineEnabled: Bool
    /// Playable sources: the HLS master playlist.
    public var sources: [SourceDocument]

    enum CodingKeys: String, CodingKey {
        case id, name, duration, poster, thumbnail, sources
        case textTracks = "text_tracks"
        case offlineEnabled = "offline_enabled"
    }

    /// The document of `video` in `catalog`.
    public init(_ video: Video, in catalog: Catalog) {
        let base = "/videos/\(video.id)"
        id = video.id
        name = video.name
        duration = video.duration
        poster = "\(base)/poster.png"
        thumbnail = "\(base)/thumb.png"
        textTracks = video.textTracks.map {
            TextTrackDocument(language: $0.language, label: $0.label, url: "\(base)/subs/\($0.language)/index.m3u8")
        }
        offlineEnabled = video.offlineEnabled
        var keySystems: [KeySystemDocument]?
        switch video.protection {
        case .none: keySystems = nil
        case .httpKey: keySystems = [KeySystemDocument(name: "aes-128", keyURL: "\(base)/key")]
        case .skd:
            keySystems = [
                KeySystemDocument(
                    name: "com.apple.fps.1_0", certificateURL: catalog.configuration.certificatePath,
                    licenseURL: catalog.configuration.licensePath, keyURI: catalog.keyURI(for: video.id))
            ]
        }
        sources = [SourceDocument(url: "\(base)/master.m3u8", type: SourceDocument.hlsType, keySystems: keySystems)]
    }
}

/// One subtitle track in the catalog JSON.
public struct TextTrackDocument: Hashable, Sendable, Codable {
    /// RFC 5646 language tag.
    public var language: String
    /// Label shown to the user.
    public var label: String
    /// Path of the track's WebVTT media playlist.
    public var url: String
}

/// One source in the catalog JSON.
public struct SourceDocument: Hashable, Sendable, Codable {
    /// MIME type of HLS playlists.
    public static let hlsType = "application/x-mpegURL"
    /// Path of the master playlist.
    public var url: String
    /// `application/x-mpegURL`.
    public var type: String
    /// How to obtain the key; absent for clear videos.
    public var keySystems: [KeySystemDocument]?

    enum CodingKeys: String, CodingKey {
        case url, type
        case keySystems = "key_systems"
    }
}

/// How a protected source's key is obtained.
public struct KeySystemDocument: Hashable, Sendable, Codable {
    /// `com.apple.fps.1_0` for `skd` videos, `aes-128` for HTTP-key videos.
    public var name: String
    /// FairPlay certificate endpoint path (`skd` only).
    public var certificateURL: String?
    /// License endpoint path (`skd` only).
    public var licenseURL: String?
    /// The `skd://` key URI (`skd` only).
    public var keyURI: String?
    /// Path of the clear key (HTTP-key only).
    public var keyURL: String?

    enum CodingKeys: String, CodingKey {
        case name
        case certificateURL = "certificate_url"
        case licenseURL = "license_url"
        case keyURI = "key_uri"
        case keyURL = "key_url"
    }

    /// Creates a key system entry.
    public init(
        name: String, certificateURL: String? = nil, licenseURL: String? = nil, keyURI: String? = nil,
        keyURL: String? = nil
    ) {
        self.name = name
        self.certificateURL = certificateURL
        self.licenseURL = licenseURL
        self.keyURI = keyURI
        self.keyURL = keyURL
    }
}

/// The body of `GET /videos`: every video's document, in catalog order.
public struct VideoListDocument: Hashable, Sendable, Codable {
    /// The videos.
    public var videos: [VideoDocument]

    /// The list of `catalog`.
    public init(_ catalog: Catalog) {
        videos = catalog.videos.map { VideoDocument($0, in: catalog) }
    }
}
