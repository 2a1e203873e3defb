import Foundation

/// How the previous process on the storage ended (hello's `after`).
public enum RelaunchKind: String, Sendable, CaseIterable {
    case clean, crash, memoryPressure, userForceQuit, rebootWhileSuspended

    /// Whether the downloads in flight must be reported `failed` at once (the SDK guides:
    /// after a force-quit or a reboot they do not survive; after a crash they resume).
    public var failsDownloadsInFlight: Bool { self == .userForceQuit || self == .rebootWhileSuspended }
}

/// What hello tells the app.
public struct Launch: Sendable, Equatable {
    /// The directory that is the app's own for the scenario: it survives kills and relaunches.
    public var storage: String
    /// How the previous process on it ended.
    public var after: RelaunchKind
    /// The CA certificate (PEM) of a run served over HTTPS (`bench --https`): the app's
    /// HTTP client trusts it for the run's origin. Nil over plain HTTP.
    public var caFile: String?
}

/// A capability an app declares in its hello reply (docs/app-protocol.md, "Capabilities").
public enum Capability: String, Sendable, CaseIterable {
    case cancelAndDelete, cellularSetting, crashRecovery, inspect, licenses, pause, relaunchAfterForceQuit, rentals
}

/// The app's answer to hello: its name (for reports) and what it can do.
public struct AppDescription: Sendable, Equatable {
    /// The app's name and version, e.g. `my-app 1.2`.
    public var name: String
    /// What it can do; scenarios that need more are not played.
    public var capabilities: Set<Capability>
    public init(name: String, capabilities: Set<Capability>) {
        self.name = name
        self.capabilities = capabilities
    }
}

/// A network interface that is up, from `setPath`.
public struct NetworkInterface: Sendable, Equatable {
    public enum Kind: String, Sendable { case wifi, cellular }
    public var kind: Kind
    /// The conditioner's listener for this interface.
    public var host: String
    public var port: Int
    /// The same listener as an HTTP proxy (`http://host:port`).
    public var proxy: URL?
    /// Metered (cellular): only downloads allowed to use cellular may use it.
    public var isExpensive: Bool
    public var isConstrained: Bool

    public init(kind: Kind, host: String, port: Int, proxy: URL? = nil, isExpensive: Bool, isConstrained: Bool = false) {
        self.kind = kind
        self.host = host
        self.port = port
        self.proxy = proxy
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
    }

    /// `url` sent over this interface by connecting to its listener: the same URL with
    /// the listener's host and port (the listener forwards to the origin, which answers
    /// by path). For an HTTP client that cannot be given a proxy.
    public func routed(_ url: URL) -> URL {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        parts.host = host
        parts.port = port
        return parts.url ?? url
    }

    /// The proxy settings of a `URLSessionConfiguration.connectionProxyDictionary` that
    /// sends every request through this interface (HTTP requests in absolute form, HTTPS
    /// in a `CONNECT` tunnel). Apple's URLSession honours them; swift-corelibs-foundation's
    /// (Linux) ignores that dictionary, so there use `routed(_:)`.
    public var proxyDictionary: [AnyHashable: Any] {
        ["HTTPEnable": 1, "HTTPProxy": host, "HTTPPort": port, "HTTPSEnable": 1, "HTTPSProxy": host, "HTTPSPort": port]
    }
}

/// A download the harness asks for (`request`).
public struct DownloadRequest: Sendable {
    /// The catalog entry (`GET /videos/{id}`).
    public var video: CatalogVideo
    /// The whole entry as the harness sent it, for fields `video` does not model.
    public var videoJSON: Data
    /// The entry's URL: resolve the entry's paths against it as a browser resolves a link.
    public var catalogURL: URL
    /// The app's cellular setting for this download, when the request says.
    public var allowsCellular: Bool?
    /// A rental: the license expires this many seconds after it is issued.
    public var rentalSeconds: Double?
    public var audioLanguages: [String]
    public var subtitleLanguages: [String]

    /// `path` (a path of the entry, such as `/videos/clear/master.m3u8`) as a URL.
    public func resolve(_ path: String) -> URL? { URL(string: path, relativeTo: catalogURL)?.absoluteURL }
}

/// A catalog entry, as far as a downloader needs it.
public struct CatalogVideo: Sendable, Equatable, Decodable {
    public struct Source: Sendable, Equatable, Decodable {
        public var url: String
        public var type: String?
        public var keySystems: [KeySystem]?
        enum CodingKeys: String, CodingKey { case url, type, keySystems = "key_systems" }
    }
    /// How the source's keys are delivered: a FairPlay-style license exchange
    /// (`certificateURL`, `licenseURL`, `keyURI`) or an AES-128 key URL.
    public struct KeySystem: Sendable, Equatable, Decodable {
        public var name: String
        public var certificateURL: String?
        public var licenseURL: String?
        public var keyURI: String?
        public var keyURL: String?
        enum CodingKeys: String, CodingKey {
            case name, certificateURL = "certificate_url", licenseURL = "license_url", keyURI = "key_uri", keyURL = "key_url"
        }
    }
    public struct TextTrack: Sendable, Equatable, Decodable {
        public var language: String
        public var label: String?
        public var url: String
    }
    public var id: String
    public var name: String?
    public var duration: Double?
    public var offlineEnabled: Bool?
    public var poster: String?
    public var thumbnail: String?
    public var textTracks: [TextTrack]?
    public var sources: [Source]
    enum CodingKeys: String, CodingKey {
        case id, name, duration, poster, thumbnail, sources
        case offlineEnabled = "offline_enabled", textTracks = "text_tracks"
    }

    /// The HLS source (`application/x-mpegURL`), else the first.
    public var hlsSource: Source? { sources.first { $0.type == "application/x-mpegURL" } ?? sources.first }
}

/// A download's state: the offline-download guides' table.
public enum DownloadState: String, Sendable, CaseIterable, Codable {
    case notDownloaded, requested, licensePreloaded, downloading
    case suspendedUser = "suspended(user)", suspendedNetwork = "suspended(network)"
    case suspendedCellularNotAllowed = "suspended(cellularNotAllowed)", suspendedStorage = "suspended(storage)"
    case suspendedAwaitingForeground = "suspended(awaitingForeground)"
    case downloaded, canceling, failed
}

/// What the app says of one download (`inspect`'s reply): claims, checked by the harness.
public struct Inspection: Sendable, Equatable {
    public var known: Bool
    public var state: DownloadState?
    public var playable: Bool
    public var unplayableReason: String?
    public var licenseExpiration: Date?
    /// The absolute path of the offline package's master playlist.
    public var package: String?
    public var files: Int?
    public var segmentHashes: [String: String]?
    public var packageComplete: Bool?

    public init(
        known: Bool, state: DownloadState? = nil, playable: Bool, unplayableReason: String? = nil,
        licenseExpiration: Date? = nil, package: String? = nil, files: Int? = nil,
        segmentHashes: [String: String]? = nil, packageComplete: Bool? = nil
    ) {
        self.known = known
        self.state = state
        self.playable = playable
        self.unplayableReason = unplayableReason
        self.licenseExpiration = licenseExpiration
        self.package = package
        self.files = files
        self.segmentHashes = segmentHashes
        self.packageComplete = packageComplete
    }
}

/// A segment found stored in part at a launch (`partialSegmentsFound`).
public struct PartialSegment: Sendable, Equatable {
    public var download: String
    public var stream: String
    public var index: Int
    /// The origin path of the segment.
    public var path: String
    public var bytes: Int
    public var byteRange: String?
    public init(download: String, stream: String, index: Int, path: String, bytes: Int, byteRange: String? = nil) {
        self.download = download
        self.stream = stream
        self.index = index
        self.path = path
        self.bytes = bytes
        self.byteRange = byteRange
    }
}
