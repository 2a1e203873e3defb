import Crypto
import Foundation
import HLSPlaylist
import OfflineDownloads

/// What is on disk in one download's package directory, read without the engine:
/// its files, its plan (`plan.json`), the hashes of its stored segments, and whether
/// its local playlists name only files it holds. Pure reads; the inspector calls it
/// from the agent's command task.
enum AgentPackage {
    /// The plan kept in `directory`, or nil when there is none (yet) or it is unreadable.
    static func plan(in directory: String) -> DownloadPlan? {
        let file = URL(fileURLWithPath: directory).appendingPathComponent(DownloadPlan.packageFileName)
        guard let data = try? Data(contentsOf: file) else { return nil }
        return try? JSONDecoder().decode(DownloadPlan.self, from: data)
    }

    /// Regular files under `directory`, recursively; 0 when it does not exist.
    static func fileCount(in directory: String) -> Int {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return 0 }
        var count = 0
        while let relative = walker.nextObject() as? String {
            if isRegularFile(directory + "/" + relative) { count += 1 }
        }
        return count
    }

    /// SHA-256 (lowercase hex) of every stored segment, init section and key file of the plan,
    /// keyed by the origin path it was fetched from (`/videos/clear/400k/seg3.ts`; a
    /// byte range adds `#bytes=a-b`). Only final files count: a `.part` is not stored.
    static func segmentHashes(in directory: String) -> [String: String] {
        guard let plan = plan(in: directory) else { return [:] }
        var hashes: [String: String] = [:]
        for item in plan.items {
            let file = directory + "/" + item.localPath
            guard isRegularFile(file), let hash = sha256(of: file) else { continue }
            let key = item.remoteURL.path + (item.rangeHeader.map { "#" + $0 } ?? "")
            hashes[key] = hash
        }
        return hashes
    }

    /// Whether `master.m3u8` exists, names at least one variant, and every URI in it
    /// and in the media playlists it names is a file present in `directory`. `skd://`
    /// keys (answered by the license) and `data:` URIs need no file; any other URI
    /// with a scheme is remote, so the package is not complete.
    static func isComplete(_ directory: String) -> Bool {
        guard let master = try? MasterPlaylist.parse(text(directory + "/" + OfflinePackage.masterPlaylistPath) ?? ""),
            !master.variants.isEmpty
        else { return false }
        let playlists = master.variants.map(\.uri) + master.renditions.compactMap(\.uri) + master.iFrameVariants.map(\.uri)
        guard master.sessionKeys.allSatisfy({ isLocal($0.uri, in: directory) }) else { return false }
        for uri in playlists {
            guard isLocal(uri, in: directory), let path = file(uri, in: directory),
                let media = try? MediaPlaylist.parse(text(path) ?? "")
            else { return false }
            for segment in media.segments {
                let uris = [segment.uri] + segment.keys.map(\.uri) + [segment.map?.uri].compactMap { $0 }
                guard uris.allSatisfy({ isLocal($0, in: directory) }) else { return false }
            }
        }
        return true
    }

    /// Whether `uri` needs nothing remote: a file present in `directory`, or a key
    /// that is not fetched (`skd:`, `data:`).
    private static func isLocal(_ uri: String, in directory: String) -> Bool {
        let scheme = uri.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() }
        if uri.contains(":"), scheme == "skd" || scheme == "data" { return true }
        return file(uri, in: directory) != nil
    }

    /// The file a relative `uri` names inside `directory`, if it exists and stays inside.
    private static func file(_ uri: String, in directory: String) -> String? {
        guard !uri.isEmpty, !uri.contains(":"), !uri.hasPrefix("/") else { return nil }
        let relative = uri.removingPercentEncoding ?? uri
        let root = URL(fileURLWithPath: directory).standardizedFileURL.path
        let path = URL(fileURLWithPath: root + "/" + relative).standardizedFileURL.path
        guard path.hasPrefix(root + "/"), isRegularFile(path) else { return nil }
        return path
    }

    private static func text(_ path: String) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// SHA-256 of the file at `path`, read 1 MiB at a time.
    private static func sha256(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        } catch {
            return nil
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
