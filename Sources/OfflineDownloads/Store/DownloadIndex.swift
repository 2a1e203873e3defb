import Foundation
import GRDB
import Synchronization

/// The engine's persistent index: downloads, their segments and their licenses, in
/// SQLite through GRDB.
///
/// On a file the index is a `DatabasePool` in WAL mode with `synchronous = FULL`:
/// a call that returned has committed, and survives a crash or a power cut. In memory
/// (for tests) it is a `DatabaseQueue`. Foreign keys are on: deleting a download
/// deletes its segments and license.
///
/// Owned by the download manager, which opens it once at start-up and may call it
/// from any task or actor: the class is immutable and GRDB serialises the writes on
/// its own queue, so `async` calls never block the caller's executor. Every call
/// throws `IndexError`, whose description tells the user what to do.
public final class DownloadIndex: Sendable {
    /// Where the index lives: the database file's path, or `:memory:`.
    public let path: String
    private let writer: any DatabaseWriter
    let progressWrites = Atomic<Int>(0)

    /// Transactions that recorded segment progress or completions since the index was
    /// opened (`record(_:)`, `recordProgress(_:)`, `markSegmentComplete`): what
    /// `ProgressBatcher` keeps low. For diagnostics and tests.
    public var progressWriteCount: Int { progressWrites.load(ordering: .relaxed) }

    private init(writer: any DatabaseWriter, path: String) throws(IndexError) {
        self.writer = writer
        self.path = path
        do {
            try Self.migrator.migrate(writer)
            if try writer.read({ try Self.migrator.hasBeenSuperseded($0) }) {
                throw IndexError.writtenByNewerEngine(path: path)
            }
        } catch {
            try? writer.close()
            throw IndexError.wrapping(error, path: path)
        }
    }

    /// Opens the index at `path`, creating its directory and the database as needed,
    /// and migrates it to the current schema. Call once, at start-up; blocks for the
    /// time of opening and migrating.
    public static func open(path: String) throws(IndexError) -> DownloadIndex {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .cannotOpen(path: path, detail: "cannot create \(directory): \(error.localizedDescription)")
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw IndexError.wrapping(error, path: path)
        }
        return try DownloadIndex(writer: pool, path: path)
    }

    /// An empty index in memory, for tests: same schema and rules, no file.
    public static func inMemory() throws(IndexError) -> DownloadIndex {
        do {
            return try DownloadIndex(writer: DatabaseQueue(configuration: configuration), path: ":memory:")
        } catch {
            throw IndexError.wrapping(error, path: ":memory:")
        }
    }

    private static var configuration: Configuration {
        var configuration = Configuration()
        configuration.label = "DownloadIndex"
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            // WAL's default would be NORMAL, which may lose the last commits on power loss.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        return configuration
    }

    /// Copies the WAL into the database file, then closes the database; calls made
    /// afterwards throw. For an orderly shutdown, which then leaves one complete file.
    /// Optional: a process that never closes the index loses nothing it committed.
    public func close() throws(IndexError) {
        do {
            if writer is DatabasePool {
                // GRDB closes the writer before the (read-only) readers, so SQLite's own
                // checkpoint on close never runs; do it here.
                _ = try writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            }
            try writer.close()
        } catch {
            throw IndexError.wrapping(error, path: path)
        }
    }

    // MARK: Downloads

    /// Inserts a new download. Throws `.conflict` when the token is already used.
    public func insert(_ download: DownloadRecord) async throws(IndexError) {
        try await write { db in
            try download.insert(db)
            try Self.refreshBytes(db, token: download.token)
        }
    }

    /// Replaces every column of an existing download with `download`'s, except
    /// `bytesDownloaded`, which the index derives from the segments. Throws
    /// `.notFound` when there is no such download. Prefer `updateDownload(_:_:)`,
    /// which cannot overwrite a newer write with a stale copy.
    public func update(_ download: DownloadRecord) async throws(IndexError) {
        try await write { db in
            try download.update(db)
            try Self.refreshBytes(db, token: download.token)
        }
    }

    /// Reads the download `token`, lets `change` modify it and writes the columns it
    /// changed, all in one transaction; returns the record as stored. Throws
    /// `.notFound` when there is no such download.
    @discardableResult
    public func updateDownload(
        _ token: String, _ change: @escaping @Sendable (inout DownloadRecord) -> Void
    ) async throws(IndexError) -> DownloadRecord {
        try await write { db in
            guard var download = try DownloadRecord.fetchOne(db, key: token) else {
                throw IndexError.notFound("the download \(token)")
            }
            try download.updateChanges(db) { change(&$0) }
            try Self.refreshBytes(db, token: token)
            return try DownloadRecord.fetchOne(db, key: token) ?? download
        }
    }

    /// Writes a state machine's snapshot for the download `token`: what the engine
    /// does for every `.persist` action, before any other action of the same event.
    public func updateSnapshot(_ snapshot: DownloadStateMachine.Snapshot, for token: String) async throws(IndexError) {
        try await updateDownload(token) { $0.snapshot = snapshot }
    }

    /// The download `token`, or nil.
    public func download(_ token: String) async throws(IndexError) -> DownloadRecord? {
        try await read { db in try DownloadRecord.fetchOne(db, key: token) }
    }

    /// Every download, oldest request first: what the engine restores at start-up.
    public func downloads() async throws(IndexError) -> [DownloadRecord] {
        try await read { db in
            try DownloadRecord.order(Column("requestedAt"), Column("token")).fetchAll(db)
        }
    }

    /// Deletes the download `token` with its segments and license (the files are the
    /// caller's, see `PackageFiles.removeAll()`). Returns whether it existed.
    @discardableResult
    public func delete(_ token: String) async throws(IndexError) -> Bool {
        try await write { db in try DownloadRecord.deleteOne(db, key: token) }
    }

    // MARK: Plumbing

    /// Runs `updates` in one transaction on GRDB's writer queue.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws(IndexError) -> T {
        do {
            return try await writer.write(updates)
        } catch is CancellationError {
            throw .canceled
        } catch {
            throw IndexError.wrapping(error, path: path)
        }
    }

    /// Runs `value` on a reader (a snapshot that concurrent writes do not change).
    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws(IndexError) -> T {
        do {
            return try await writer.read(value)
        } catch is CancellationError {
            throw .canceled
        } catch {
            throw IndexError.wrapping(error, path: path)
        }
    }

    /// Sets `bytesDownloaded` of the download `token` to the sum of its segments' bytes.
    static func refreshBytes(_ db: Database, token: String) throws {
        try db.execute(literal: """
            UPDATE download
            SET bytesDownloaded = (SELECT COALESCE(SUM(bytes), 0) FROM segment WHERE segment.token = download.token)
            WHERE token = \(token)
            """)
    }

    /// Runs raw SQL in one transaction, for tests that damage or age an index.
    func execute(sql: String) async throws(IndexError) {
        try await write { db in try db.execute(sql: sql) }
    }

    /// The migrations applied to the database, for tests.
    func appliedMigrations() async throws(IndexError) -> [String] {
        try await read { db in Array(try Self.migrator.appliedIdentifiers(db)).sorted() }
    }

    /// The value of `PRAGMA name`, for tests (e.g. `journal_mode`).
    func pragma(_ name: String) async throws(IndexError) -> String? {
        try await read { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }
}
