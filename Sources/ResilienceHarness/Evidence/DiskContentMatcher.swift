import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One regular file under the app's storage directory, as the harness found it.
public struct DiskFile: Sendable, Hashable {
    /// Its path relative to the storage directory (`/`-separated).
    public var relativePath: String
    /// Its size in bytes.
    public var size: Int64

    /// Creates a file entry.
    public init(relativePath: String, size: Int64) {
        self.relativePath = relativePath
        self.size = size
    }

    /// Every regular file under `directory` (symbolic links neither followed nor
    /// listed), sorted by path; none when the directory does not exist. Blocking reads.
    public static func walk(_ directory: String) -> [DiskFile] {
        guard let names = try? FileManager.default.subpathsOfDirectory(atPath: directory) else { return [] }
        return names.sorted().compactMap { name in
            var info = stat()
            guard lstat(directory + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            return DiskFile(relativePath: name, size: Int64(info.st_size))
        }
    }
}

/// What the harness knows of one resource the origin serves, to recognise copies of
/// it on disk: its size, its SHA-256 and its first bytes.
public struct OriginResourceDigest: Sendable, Hashable {
    /// How many first bytes `head` keeps.
    public static let headLength = 64
    /// The resource: an origin path (e.g. `/videos/clear/400k/seg3.ts`), or a byte range of
    /// one (`/pilot/all.ts#bytes=1000-1999`: `MediaResourceKey`).
    public var path: String
    public var size: Int64
    /// SHA-256 of the bytes served, lowercase hex.
    public var sha256: String
    /// The first `headLength` bytes (all of them when shorter): a cheap first test of
    /// whether a file can be a prefix of it.
    public var head: [UInt8]

    /// The digest of `bytes` served at `path`.
    public init(path: String, bytes: [UInt8]) {
        self.init(path: path, size: Int64(bytes.count), sha256: DiskContentMatcher.hex(SHA256.hash(data: bytes)),
                  head: Array(bytes.prefix(Self.headLength)))
    }

    /// A digest from parts already known (e.g. `ContentResource.sha256`).
    public init(path: String, size: Int64, sha256: String, head: [UInt8]) {
        self.path = path
        self.size = size
        self.sha256 = sha256
        self.head = head
    }
}

/// The app's files at a kill, identified by content (`.harness(.diskAtKill)`).
public struct DiskIdentification: Sendable, Hashable {
    /// Resources (origin paths, or byte ranges of them: `MediaResourceKey`) a file holds
    /// the whole of, sorted, each once.
    public var stored: [String] = []
    /// Resource → the bytes a file holds of it (a strict prefix; of a range, its first bytes).
    public var partial: [String: Int64] = [:]
    /// Files that are neither: relative path → size.
    public var unknown: [String: Int64] = [:]

    /// Creates an identification.
    public init(stored: [String] = [], partial: [String: Int64] = [:], unknown: [String: Int64] = [:]) {
        self.stored = stored
        self.partial = partial
        self.unknown = unknown
    }
}

/// Says which origin resources the app's files are, by their content only (never by
/// their names, which are the app's business):
/// - a file whose SHA-256 equals a resource of `resources` is a stored copy of it
///   (equal to several: of those of them in `fetching`, or of all when none is);
/// - else a non-empty file that is a strict prefix of exactly one resource of
///   `resources` whose path is in `fetching` (what the app was fetching before the
///   kill, from the origin's log) is a partial copy of it holding its size in bytes;
///   a second file partial of the same path is unknown;
/// - anything else (empty, a prefix of several resources, the app's own index,
///   playlists it rewrote…) is unknown, kept with its name and size.
///
/// A value; `identify` reads the files (blocking), so the harness calls it off its actors.
public struct DiskContentMatcher: Sendable {
    public var resources: [OriginResourceDigest]
    public var fetching: Set<String>
    /// The full bytes of a resource (`OriginResourceDigest.path`: of a range, that slice of
    /// its file), for the prefix check (called only for resources whose `head` matches a file).
    public var load: @Sendable (String) -> [UInt8]?

    /// A matcher over `resources`.
    public init(
        resources: [OriginResourceDigest], fetching: Set<String>, load: @escaping @Sendable (String) -> [UInt8]?
    ) {
        self.resources = resources
        self.fetching = fetching
        self.load = load
    }

    /// Identifies `files` (relative to `directory`).
    public func identify(_ files: [DiskFile], in directory: String) -> DiskIdentification {
        let bySize = Dictionary(grouping: resources, by: \.size)
        var result = DiskIdentification()
        var stored: Set<String> = []
        for file in files {
            let path = directory + "/" + file.relativePath
            if let copies = bySize[file.size], let bytes = Self.read(path) {
                let hash = Self.hex(SHA256.hash(data: bytes))
                let equal = copies.filter { $0.sha256 == hash }.map(\.path)
                if !equal.isEmpty {
                    let fetched = equal.filter(fetching.contains)
                    stored.formUnion(fetched.isEmpty ? equal : fetched)
                    continue
                }
            }
            if let source = partialSource(of: file, at: path), result.partial[source] == nil {
                result.partial[source] = file.size
            } else {
                result.unknown[file.relativePath] = file.size
            }
        }
        result.stored = stored.sorted()
        return result
    }

    /// The one resource being fetched that the file is a strict prefix of, if exactly one.
    private func partialSource(of file: DiskFile, at path: String) -> String? {
        guard file.size > 0 else { return nil }
        let longer = resources.filter { $0.size > file.size && fetching.contains($0.path) }
        guard !longer.isEmpty, let bytes = Self.read(path), Int64(bytes.count) == file.size else { return nil }
        let head = bytes.prefix(OriginResourceDigest.headLength)
        var sources: [String] = []
        for resource in longer where resource.head.starts(with: head) {
            if head.count < OriginResourceDigest.headLength {
                sources.append(resource.path)  // the whole file was compared
            } else if let served = load(resource.path), served.starts(with: bytes) {
                sources.append(resource.path)
            }
            if sources.count > 1 { return nil }
        }
        return sources.first
    }

    private static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    /// Lowercase hex of a digest.
    static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
