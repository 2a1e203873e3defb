import DeadzoneKit
import Foundation

/// The app's storage directory: a JSON index and one package directory per download.
///
///     <storage>/index.json            downloads, their plans and licenses, the user's settings
///     <storage>/packages/<token>/     the offline package: master.m3u8 and, mirroring the
///                                     origin's layout below the master's directory, media
///                                     playlists, keys and segments (`.part` while in flight)
///
/// The index is rewritten whole at every change, to a temporary file renamed over the old
/// one: a SIGKILL at any instant leaves the previous index or the new one. A resource is
/// stored once its file (renamed from `.part`) exists: the disk is the record of that.
/// Thread-safe (one lock).
// @unchecked: `index` is read and written only under `lock`; `storage` is a `let`.
final class Store: @unchecked Sendable {
    /// The index's contents.
    struct Index: Codable {
        var allowsCellular = false
        var downloads: [String: DownloadRecord] = [:]
    }

    static let master = "master.m3u8"
    let storage: URL
    private let lock = NSLock()
    private var index = Index()
    private var indexURL: URL { storage.appendingPathComponent("index.json") }

    init(storage: String) throws {
        self.storage = URL(fileURLWithPath: storage, isDirectory: true)
        try FileManager.default.createDirectory(at: self.storage.appendingPathComponent("packages"), withIntermediateDirectories: true)
        if let data = try? Data(contentsOf: indexURL) {
            index = try JSONDecoder().decode(Index.self, from: data)
        }
    }

    /// Every download, oldest first.
    var downloads: [DownloadRecord] {
        lock.withLock { index.downloads.values.sorted { $0.requestedAt < $1.requestedAt } }
    }

    var allowsCellular: Bool { lock.withLock { index.allowsCellular } }

    func setAllowsCellular(_ allowed: Bool) throws {
        try lock.withLock {
            index.allowsCellular = allowed
            try commit()
        }
    }

    /// Writes `record` (a new download or a change of one).
    func save(_ record: DownloadRecord) throws {
        try lock.withLock {
            index.downloads[record.token] = record
            try commit()
        }
    }

    /// Forgets the download and deletes its package: nothing of it is left.
    func remove(_ token: String) throws {
        try lock.withLock {
            index.downloads[token] = nil
            try commit()
        }
        try? FileManager.default.removeItem(at: packageDirectory(token))
    }

    func packageDirectory(_ token: String) -> URL {
        storage.appendingPathComponent("packages", isDirectory: true).appendingPathComponent(token, isDirectory: true)
    }

    func masterPath(_ token: String) -> String { packageDirectory(token).appendingPathComponent(Self.master).path }

    /// How many regular files the package directory holds.
    func fileCount(_ token: String) -> Int {
        guard let walker = FileManager.default.enumerator(at: packageDirectory(token), includingPropertiesForKeys: [.isRegularFileKey]) else { return 0 }
        return walker.compactMap { ($0 as? URL).flatMap { try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile } }.filter { $0 }.count
    }

    /// Writes `data` at `local` in the package, atomically.
    func write(_ data: Data, token: String, local: String) throws {
        let url = packageDirectory(token).appendingPathComponent(local)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
    }

    /// The size of a file of the package, nil when there is none.
    func size(token: String, local: String) -> Int? {
        let path = packageDirectory(token).appendingPathComponent(local).path
        return (try? FileManager.default.attributesOfItem(atPath: path))?[.size].flatMap { ($0 as? NSNumber)?.intValue }
    }

    private func commit() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(index).write(to: indexURL, options: .atomic)
    }
}
