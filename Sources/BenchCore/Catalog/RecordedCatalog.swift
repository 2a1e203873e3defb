import Foundation

/// The manifest of a recorded catalog (`catalog.json` in the directory `bench record`
/// writes): every resource of the streams recorded, where its bytes are kept, and a
/// catalog entry per stream. The recorder writes it; the origin reads it to serve the
/// streams byte for byte. Keys are snake_case; sizes in bytes, durations in seconds.
public struct RecordedCatalog: Hashable, Sendable, Codable {
    /// The manifest file's name inside a catalog directory.
    public static let fileName = "catalog.json"
    /// The format this code writes and reads.
    public static let currentVersion = 1

    /// The manifest's format version.
    public var version: Int
    /// One entry per stream recorded, in the order they were named.
    public var videos: [RecordedVideo]
    /// Every resource fetched, in the order it was first named.
    public var resources: [RecordedResource]

    enum CodingKeys: String, CodingKey {
        case version, videos, resources
    }

    /// A manifest of `videos` and `resources`.
    public init(videos: [RecordedVideo] = [], resources: [RecordedResource] = []) {
        version = Self.currentVersion
        self.videos = videos
        self.resources = resources
    }

    /// The resource recorded for `url` (its original URL, before any redirect).
    public func resource(for url: String) -> RecordedResource? {
        resources.first { $0.url == url }
    }

    /// Reads the manifest of the catalog directory `directory`; nil when it has none.
    /// - Throws: `RecordedCatalogError` when the file cannot be read or is not a manifest
    ///   of this version.
    public static func load(from directory: String) throws(RecordedCatalogError) -> RecordedCatalog? {
        let path = (directory as NSString).appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let catalog: RecordedCatalog
        do {
            catalog = try JSONDecoder().decode(RecordedCatalog.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw RecordedCatalogError(path: path, reason: "is not a recorded catalog's manifest (\(error))")
        }
        guard catalog.version == currentVersion else {
            throw RecordedCatalogError(
                path: path, reason: "is version \(catalog.version); this bench reads version \(currentVersion)")
        }
        return catalog
    }

    /// Writes the manifest into `directory`, replacing the file whole (a crash leaves
    /// the previous manifest or this one, never half of one).
    public func write(to directory: String) throws(RecordedCatalogError) {
        let path = (directory as NSString).appendingPathComponent(Self.fileName)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw RecordedCatalogError(path: path, reason: "cannot be written (\(error.localizedDescription))")
        }
    }
}

/// A stream recorded: the catalog entry a scenario names by `id`.
public struct RecordedVideo: Hashable, Sendable, Codable {
    /// The id scenarios and the catalog API use.
    public var id: String
    /// The title.
    public var name: String
    /// The URL the stream was recorded from: its master (or only media) playlist.
    public var master: String
    /// The longest media playlist's duration, in seconds.
    public var duration: Double
    /// The poster's URL, when one was recorded.
    public var poster: String?
    /// How its segments are protected: `clear`, `aes-128` or `sample-aes`.
    public var protection: String
    /// The `skd://` (and other non-fetchable) key URIs its playlists name: a license
    /// server answers for them; the recorder fetches nothing for them.
    public var licenseKeys: [String]
    /// The URLs of its resources (`RecordedCatalog.resources`), in the order the walk
    /// met them; two streams may share one.
    public var resources: [String]

    enum CodingKeys: String, CodingKey {
        case id, name, master, duration, poster, protection, resources
        case licenseKeys = "license_keys"
    }

    /// Creates the entry.
    public init(
        id: String, name: String, master: String, duration: Double, poster: String? = nil, protection: String,
        licenseKeys: [String] = [], resources: [String] = []
    ) {
        self.id = id
        self.name = name
        self.master = master
        self.duration = duration
        self.poster = poster
        self.protection = protection
        self.licenseKeys = licenseKeys
        self.resources = resources
    }
}

/// One resource recorded: a playlist, segment, init section, key, subtitle file or poster.
public struct RecordedResource: Hashable, Sendable, Codable {
    /// What a resource is to its stream.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        case master, media, iframes, segment, initSection = "init", key, subtitles, poster
    }

    /// The URL as the playlist named it, resolved (before any redirect).
    public var url: String
    /// What it is.
    public var kind: Kind
    /// Its bytes: a path relative to the catalog directory.
    public var file: String
    /// The `Content-Type` it was served with (empty when none was sent).
    public var contentType: String
    /// Its size in bytes.
    public var size: Int64
    /// The SHA-256 of its bytes, lowercase hex.
    public var sha256: String
    /// The redirects followed to reach it, in order (empty when none).
    public var redirects: [RecordedRedirect]

    enum CodingKeys: String, CodingKey {
        case url, kind, file, size, sha256, redirects
        case contentType = "content_type"
    }

    /// Creates the entry.
    public init(
        url: String, kind: Kind, file: String, contentType: String, size: Int64, sha256: String,
        redirects: [RecordedRedirect] = []
    ) {
        self.url = url
        self.kind = kind
        self.file = file
        self.contentType = contentType
        self.size = size
        self.sha256 = sha256
        self.redirects = redirects
    }
}

/// A redirect the recorder followed: the status and where it pointed.
public struct RecordedRedirect: Hashable, Sendable, Codable {
    /// The redirect's status (301, 302, 303, 307 or 308).
    public var status: Int
    /// The `Location` it pointed to, resolved.
    public var location: String

    /// Creates the entry.
    public init(status: Int, location: String) {
        self.status = status
        self.location = location
    }
}

/// A manifest that cannot be read or written, with its path.
public struct RecordedCatalogError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The manifest's path.
    public var path: String
    /// What is wrong, as the end of a sentence.
    public var reason: String

    /// Creates the error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `PATH REASON`.
    public var description: String { "\(path) \(reason)" }
}
