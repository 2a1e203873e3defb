import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file side of one download's package directory: where each segment's `.part`
/// and final files are, the commit that makes a segment durable, and the start-up
/// reconciliation of the index with the disk.
///
/// A value naming a directory; it holds no descriptors. Its calls do blocking file
/// I/O, so the engine calls them off its actor's executor (or accepts the short
/// block). The rule it serves: a segment's bytes go to `.part`, which is synced and
/// renamed (`commit`), and only then recorded complete in the index. A crash at any
/// instant therefore leaves either a record that understates the disk, which
/// `reconcile` corrects, or a finished file whose record `reconcile` downgrades —
/// never a record of bytes that are not there.
public struct PackageFiles: Sendable, Hashable {
    /// The package directory's absolute path.
    public let directory: String

    /// Names the package directory at `directory` (absolute); creates nothing.
    public init(directory: String) {
        self.directory = directory
    }

    /// Where `segment`'s complete file is.
    public func finalPath(for segment: SegmentRecord) -> String {
        directory + "/" + segment.localPath
    }

    /// Where `segment`'s bytes go while it downloads: the final path with `.part` appended.
    public func partPath(for segment: SegmentRecord) -> String {
        finalPath(for: segment) + ".part"
    }

    /// Creates the directories `segment`'s files go in and returns its `.part` path.
    /// Call before writing the first byte of a segment.
    @discardableResult
    public func prepare(_ segment: SegmentRecord) throws(PackageFileError) -> String {
        try prepare(localPath: segment.localPath)
    }

    /// `prepare(_:)` for any file of the package (e.g. an image of `PackageArtwork`),
    /// named by its path relative to the package directory.
    @discardableResult
    public func prepare(localPath: String) throws(PackageFileError) -> String {
        try Self.checkInside(localPath)
        let final = directory + "/" + localPath
        try Self.makeDirectories(URL(fileURLWithPath: final).deletingLastPathComponent().path)
        return final + ".part"
    }

    /// Makes `segment`'s `.part` file its final file, durably: syncs the file, renames
    /// it, syncs the directory. Returns the file's size, to record with
    /// `DownloadIndex.markSegmentComplete`, which must come after this and not before.
    @discardableResult
    public func commit(_ segment: SegmentRecord) throws(PackageFileError) -> Int64 {
        try commit(localPath: segment.localPath)
    }

    /// `commit(_:)` for any file of the package, named by its path relative to the
    /// package directory.
    @discardableResult
    public func commit(localPath: String) throws(PackageFileError) -> Int64 {
        try Self.checkInside(localPath)
        let final = directory + "/" + localPath
        let part = final + ".part"
        let size: Int64
        do { size = try Self.sync(part) } catch {
            // Committed already, by a worker that was stopped as this one started: the
            // final file is the segment; nothing is left to rename.
            if case .system(_, _, ENOENT) = error, access(part, F_OK) != 0, let existing = Self.fileSize(final) { return existing }
            throw error
        }
        guard rename(part, final) == 0 else { throw .system(operation: "rename", path: part, errno: errno) }
        _ = try Self.sync(URL(fileURLWithPath: final).deletingLastPathComponent().path, directory: true)
        return size
    }

    /// Checks each record against the disk and returns the records as they should be,
    /// in the same order (unchanged ones as they were):
    /// - `complete` whose final file is missing or shorter than `bytes` → `pending`, 0
    ///   bytes, no hash;
    /// - `partial` or `pending` whose final file exists → `complete` with the file's size:
    ///   a final file only appears by the rename that follows its fsync, so it is whole
    ///   (the process died between the rename and the index write, or before a batch of
    ///   records was written); the caller records it. Unless its `expectedLength` is known
    ///   and the file's size differs (it was cut short or replaced since): then `pending`,
    ///   0 bytes, and it is fetched again;
    /// - other `partial` or `pending` → `bytes` is the `.part` file's size (0 when missing),
    ///   and the state `partial` or `pending` accordingly; a `.part` longer than
    ///   recorded is trusted, one longer than `expectedLength` is not (0 bytes).
    ///
    /// The engine then resumes each segment with `Range: bytes=<bytes>-`, after
    /// truncating its `.part` to `bytes` (a `pending` one may have a stale `.part`).
    public func reconcile(segments: [SegmentRecord]) -> [SegmentRecord] {
        segments.map(reconciled)
    }

    private func reconciled(_ segment: SegmentRecord) -> SegmentRecord {
        var segment = segment
        switch segment.state {
        case .complete:
            if let size = Self.fileSize(finalPath(for: segment)), size >= segment.bytes { return segment }
            segment.state = .pending
            segment.bytes = 0
            segment.sha256 = nil
        case .partial, .pending:
            if let size = Self.fileSize(finalPath(for: segment)) {
                if let expected = segment.expectedLength, size != expected {
                    segment.state = .pending
                    segment.bytes = 0
                    return segment
                }
                segment.state = .complete
                segment.bytes = size
                return segment
            }
            var size = Self.fileSize(partPath(for: segment)) ?? 0
            if let expected = segment.expectedLength, size > expected { size = 0 }
            segment.bytes = size
            segment.state = size > 0 ? .partial : .pending
        }
        return segment
    }

    /// The local paths of `segments` whose file is not whole on disk: those that
    /// `reconcile(segments:)` does not leave (or make) `complete`. For a download
    /// recorded complete, the files someone removed or cut short behind the engine's back.
    public func missingFiles(segments: [SegmentRecord]) -> [String] {
        reconcile(segments: segments).filter { $0.state != .complete }.map(\.localPath)
    }

    /// Removes the package directory and everything in it. Idempotent.
    public func removeAll() throws(PackageFileError) {
        guard FileManager.default.fileExists(atPath: directory) else { return }
        do {
            try FileManager.default.removeItem(atPath: directory)
        } catch {
            throw .removal(path: directory, detail: error.localizedDescription)
        }
    }

    /// The bytes available to the app on the volume of the package directory (or of
    /// its nearest existing ancestor, before it is created).
    public func freeSpace() throws(PackageFileError) -> Int64 {
        var path = directory
        while Self.fileSize(path) == nil, path != "/" {
            path = URL(fileURLWithPath: path).deletingLastPathComponent().path
        }
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { throw .system(operation: "statvfs", path: path, errno: errno) }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    // MARK: System calls

    /// The size of the file (or directory) at `path`, or nil when there is none.
    static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// Opens `path`, flushes it to the disk and returns its size.
    private static func sync(_ path: String, directory: Bool = false) throws(PackageFileError) -> Int64 {
        let descriptor = open(path, directory ? O_RDONLY | O_DIRECTORY : O_RDONLY)
        guard descriptor >= 0 else { throw .system(operation: "open", path: path, errno: errno) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system(operation: "stat", path: path, errno: errno) }
        #if canImport(Darwin)
        // On Darwin fsync does not reach the platter; F_FULLFSYNC does.
        guard fcntl(descriptor, F_FULLFSYNC) == 0 || fsync(descriptor) == 0 else {
            throw .system(operation: "fsync", path: path, errno: errno)
        }
        #else
        guard fsync(descriptor) == 0 else { throw .system(operation: "fsync", path: path, errno: errno) }
        #endif
        return Int64(info.st_size)
    }

    /// `mkdir -p`.
    private static func makeDirectories(_ path: String) throws(PackageFileError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0, errno != EEXIST {
                throw .system(operation: "create the directory", path: current, errno: errno)
            }
        }
    }

    private static func checkInside(_ localPath: String) throws(PackageFileError) {
        if localPath.isEmpty || localPath.hasPrefix("/") || localPath.split(separator: "/").contains("..") {
            throw .invalidLocalPath(localPath)
        }
    }
}
