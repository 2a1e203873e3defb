/// The JSON bodies of the fixture origin's catalog API (`GET /videos` and
/// `GET /videos/{id}`), shared with the engine that reads them.
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

    /// Creates the document.
    public init(
        id: String, name: String, duration: Double, poster: String, thumbnail: String,
        textTracks: [TextTrackDocument], offlineEnabled: Bool, sources: [SourceDocument]
    ) {
        self.id = id
        self.name = name
        self.duration = duration
        self.poster = poster
        self.thumbnail = thumbnail
        self.textTracks = textTracks
        self.offlineEnabled = offlineEnabled
        self.sources = sources
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

    /// Creates the document.
    public init(language: String, label: String, url: String) {
        self.language = language
        self.label = label
        self.url = url
    }
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

    /// Creates the document.
    public init(url: String, type: String, keySystems: [KeySystemDocument]?) {
        self.url = url
        self.type = type
        self.keySystems = keySystems
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

    /// Creates the document.
    public init(videos: [VideoDocument]) {
        self.videos = videos
    }
}
