import Crypto
import Foundation
import HLSPlaylist

/// Reads an app's offline package from disk, as a player would open it, with nothing
/// of the app: the master playlist at the path the app named, every media playlist it
/// names, and every segment, key and init section those name, each file hashed.
///
/// Every URI must name a file inside the package directory (the master's directory,
/// symlinks resolved): `..`, an absolute path or a symlink that leads out is
/// `outside`, a URI with a scheme is no file (`skd:` and `data:` keys need none; any
/// other scheme is remote). Pure reads; called by `PackageWatch` from the agent's
/// monitor thread or the scenario's task, and by tests. Never throws: what cannot be
/// read is recorded as a problem or a missing file.
struct PackageReader {
    /// The package's master playlist (absolute path).
    let master: String
    /// The package directory, symlinks resolved.
    let root: String
    /// Hashes already taken in this read, by absolute path and range (a key file named
    /// by every segment is hashed once).
    private var hashed: [String: LocalFile.State] = [:]

    /// Reads the package whose master playlist is at `master`.
    static func read(master: String) -> PackageContents {
        var reader = PackageReader(master: master)
        return reader.read()
    }

    private init(master: String) {
        self.master = master
        let directory = URL(fileURLWithPath: master).standardizedFileURL.deletingLastPathComponent()
        root = directory.resolvingSymlinksInPath().path
    }

    private mutating func read() -> PackageContents {
        var contents = PackageContents(master: master, directory: root)
        let name = URL(fileURLWithPath: master).lastPathComponent
        guard let text = Self.text(URL(fileURLWithPath: master).resolvingSymlinksInPath().path) else {
            contents.problems.append("no master playlist \(name) in the package")
            return contents
        }
        let playlist: MasterPlaylist
        do { playlist = try MasterPlaylist.parse(text) } catch {
            contents.problems.append("the master playlist \(name) does not parse: \(error)")
            return contents
        }
        for key in playlist.sessionKeys where !Self.needsNoFile(key.uri) {
            let file = locate(key.uri, from: root)
            if case .present = file.state { continue }
            contents.problems.append("the session key \(key.uri) is \(file.state.phrase)")
        }
        contents.problems += Self.undefinedGroups(in: playlist, name: name)
        var seen: Set<String> = []
        for (uri, role) in Self.mediaPlaylists(of: playlist) where seen.insert(uri).inserted {
            contents.playlists.append(readMedia(uri, role: role))
        }
        if contents.playlists.isEmpty { contents.problems.append("the master playlist \(name) names no media playlist") }
        return contents
    }

    /// Each group a variant (or an I-frame variant) names that the master defines no
    /// rendition of, with that type: a player refuses such a master (RFC 8216 §4.3.4.2.1:
    /// AUDIO, VIDEO, SUBTITLES and CLOSED-CAPTIONS must match an EXT-X-MEDIA's GROUP-ID).
    static func undefinedGroups(in master: MasterPlaylist, name: String) -> [String] {
        var named: [(type: Rendition.MediaType, group: String, uri: String)] = []
        for variant in master.variants {
            if let audio = variant.audio { named.append((.audio, audio, variant.uri)) }
            if let video = variant.video { named.append((.video, video, variant.uri)) }
            if let subtitles = variant.subtitles { named.append((.subtitles, subtitles, variant.uri)) }
            if case .group(let captions)? = variant.closedCaptions { named.append((.closedCaptions, captions, variant.uri)) }
        }
        for variant in master.iFrameVariants {
            if let video = variant.video { named.append((.video, video, variant.uri)) }
        }
        var problems: [String] = []
        for reference in named where !master.renditions.contains(where: { $0.type == reference.type && $0.groupID == reference.group }) {
            let problem = "the master playlist \(name) names the \(reference.type.rawValue) group \"\(reference.group)\" "
                + "(for \(reference.uri)), which it defines no rendition of"
            if !problems.contains(problem) { problems.append(problem) }
        }
        return problems
    }

    /// The media playlists a master names, with the role it gives each, in its order.
    static func mediaPlaylists(of master: MasterPlaylist) -> [(uri: String, role: String)] {
        master.variants.map { ($0.uri, "variant") }
            + master.renditions.compactMap { rendition in rendition.uri.map { ($0, rendition.type.role) } }
            + master.iFrameVariants.map { ($0.uri, "i-frames") }
    }

    private mutating func readMedia(_ uri: String, role: String) -> LocalPlaylist {
        var playlist = LocalPlaylist(uri: uri, role: role)
        let file = locate(uri, from: root, hash: false)
        guard case .present = file.state, let path = file.path else {
            playlist.problems.append("the master names \(uri), which is \(file.state.phrase)")
            return playlist
        }
        let absolute = root + "/" + path
        let media: MediaPlaylist
        do { media = try MediaPlaylist.parse(Self.text(absolute) ?? "") } catch {
            playlist.problems.append("\(uri) does not parse: \(error)")
            return playlist
        }
        let base = URL(fileURLWithPath: absolute).deletingLastPathComponent().path
        playlist.mediaSequence = media.mediaSequenceNumber(ofSegment: 0)
        var remoteKeys: [String] = []
        playlist.segments = media.segments.map { segment in
            let key = OriginKey.playable(segment.keys)
            for other in segment.keys where other != key && !Self.needsNoFile(other.uri) && !remoteKeys.contains(other.uri) {
                remoteKeys.append(other.uri)
            }
            return LocalSegment(
                file: locate(segment.uri, from: base, range: segment.byteRange),
                key: key,
                keyFile: key.flatMap { Self.needsNoFile($0.uri) ? nil : locate($0.uri, from: base) },
                map: segment.map.map { locate($0.uri, from: base, range: $0.byteRange) })
        }
        for keyURI in remoteKeys {
            playlist.problems.append("\(uri) lists the key \(keyURI), which a player would fetch from the network")
        }
        playlist.problems += Self.unresolvedSidecars(of: playlist.segments, in: uri)
        return playlist
    }

    /// The keys and init sections (`EXT-X-MAP`) `segments` name that a player could not
    /// open from the package: missing, outside it, or remote; once each, whether or not the
    /// playlist is one of the origin's renditions (a subtitles playlist, or one whose
    /// segments are all absent, is matched with none, and its sidecars must resolve too).
    static func unresolvedSidecars(of segments: [LocalSegment], in uri: String) -> [String] {
        var problems: [String] = []
        for segment in segments {
            let sidecars = [segment.map.map { ("the init section", $0) }, segment.keyFile.map { ("the key", $0) }].compactMap { $0 }
            for (what, file) in sidecars {
                if case .present = file.state { continue }
                let problem = "\(uri) names \(what) \(file.uri), which is \(file.state.phrase)"
                if !problems.contains(problem) { problems.append(problem) }
            }
        }
        return problems
    }

    /// Where `uri` (relative to the directory `base`) leads, and, when it is a file
    /// inside the package, its hash (of `range` when given).
    private mutating func locate(_ uri: String, from base: String, range: ByteRange? = nil, hash: Bool = true)
        -> LocalFile
    {
        if let scheme = Self.scheme(of: uri) { return LocalFile(uri: uri, path: nil, state: .notAFile(scheme: scheme)) }
        let decoded = uri.removingPercentEncoding ?? uri
        let lexical = URL(fileURLWithPath: decoded.hasPrefix("/") ? decoded : base + "/" + decoded).standardizedFileURL
        let exists = FileManager.default.fileExists(atPath: lexical.path)
        let resolved = exists ? lexical.resolvingSymlinksInPath().path : lexical.path
        guard resolved.hasPrefix(root + "/") else { return LocalFile(uri: uri, path: nil, state: .outside) }
        let relative = String(resolved.dropFirst(root.count + 1))
        guard exists, Self.isRegularFile(resolved) else { return LocalFile(uri: uri, path: relative, state: .missing) }
        guard hash else { return LocalFile(uri: uri, path: relative, state: .present(sha256: "", bytes: 0)) }
        let cacheKey = resolved + (range.map { "#\($0)" } ?? "")
        let state = hashed[cacheKey] ?? Self.hash(resolved, range: range)
        hashed[cacheKey] = state
        return LocalFile(uri: uri, path: relative, state: state)
    }

    /// The lowercased scheme of `uri` (RFC 3986: a letter, then letters, digits, `+-.`,
    /// then `:`), nil for a path.
    static func scheme(of uri: String) -> String? {
        guard let colon = uri.firstIndex(of: ":") else { return nil }
        let scheme = uri[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }

    /// Keys nobody fetches: `skd://` (the license answers it) and `data:` (inline).
    static func needsNoFile(_ uri: String) -> Bool {
        ["skd", "data"].contains(scheme(of: uri) ?? "")
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    private static func text(_ path: String) -> String? {
        guard isRegularFile(path), let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// SHA-256 of the file at `path` (of `range` of it), read 1 MiB at a time; missing
    /// when it cannot be read, or is shorter than `range`.
    static func hash(_ path: String, range: ByteRange? = nil) -> LocalFile.State {
        guard let handle = FileHandle(forReadingAtPath: path) else { return .missing }
        defer { try? handle.close() }
        var hasher = SHA256()
        var count = 0
        do {
            if let range { try handle.seek(toOffset: UInt64(range.offset)) }
            var left = range?.length ?? Int.max
            while left > 0, let chunk = try handle.read(upToCount: min(left, 1 << 20)), !chunk.isEmpty {
                hasher.update(data: chunk)
                count += chunk.count
                left -= chunk.count
            }
        } catch {
            return .missing
        }
        if let range, count < range.length { return .missing }
        return .present(sha256: hasher.finalize().map { String(format: "%02x", $0) }.joined(), bytes: count)
    }
}

/// What `PackageReader` found: the package's playlists and the files they name.
struct PackageContents: Sendable, Hashable {
    var master: String
    var directory: String
    var problems: [String] = []
    var playlists: [LocalPlaylist] = []
}

/// One media playlist of a package, as read.
struct LocalPlaylist: Sendable, Hashable {
    var uri: String
    var role: String
    var problems: [String] = []
    var mediaSequence = 0
    var segments: [LocalSegment] = []
}

/// One segment a local playlist lists: its file, and the key and init section in effect.
struct LocalSegment: Sendable, Hashable {
    var file: LocalFile
    /// The key a player decrypts with (`OriginKey.playable`), of the keys listed.
    var key: EncryptionKey?
    /// The key's file; nil when there is no key or it needs none (`skd:`, `data:`).
    var keyFile: LocalFile?
    var map: LocalFile?
}

/// A file a playlist names, as found.
struct LocalFile: Sendable, Hashable {
    enum State: Sendable, Hashable {
        /// In the package: SHA-256 (lowercase hex) and size of its bytes (of its range).
        case present(sha256: String, bytes: Int)
        /// Inside the package directory, but no readable regular file (or too short).
        case missing
        /// The URI leads outside the package directory.
        case outside
        /// The URI has a scheme: a remote resource, or a key fetched by no one.
        case notAFile(scheme: String)

        /// How evidence says it, e.g. `not in the package`.
        var phrase: String {
            switch self {
            case .present: "in the package"
            case .missing: "not in the package"
            case .outside: "outside the package"
            case .notAFile(let scheme): "a \(scheme): URI, not a file in the package"
            }
        }
    }

    /// The URI as written.
    var uri: String
    /// The path relative to the package directory, when it is inside it.
    var path: String?
    var state: State

    /// The hash, when the file is present.
    var sha256: String? {
        if case .present(let sha256, _) = state { sha256 } else { nil }
    }
}

extension Rendition.MediaType {
    /// The role a package read gives a rendition's playlist.
    var role: String {
        switch self {
        case .audio: "audio"
        case .video: "video"
        case .subtitles: "subtitles"
        case .closedCaptions: "closed-captions"
        }
    }
}
