import GRDB

extension SegmentRecord.State: DatabaseValueConvertible {}

extension DownloadIndex {
    /// What the index knows of a download's segments, for progress and completion.
    public struct Summary: Sendable, Hashable, CustomStringConvertible {
        /// The download's segments.
        public var segmentCount: Int
        /// The segments recorded complete.
        public var completedSegments: Int
        /// The bytes stored, complete and partial.
        public var bytesStored: Int64
        /// The sum of the lengths known so far.
        public var knownExpectedBytes: Int64
        /// The segments whose length is not known yet.
        public var segmentsOfUnknownLength: Int

        /// The download's full size, once every segment's length is known.
        public var expectedBytes: Int64? { segmentsOfUnknownLength == 0 ? knownExpectedBytes : nil }
        /// Every segment is recorded complete (and there is at least one).
        public var isComplete: Bool { segmentCount > 0 && completedSegments == segmentCount }

        /// `12/40 segments, 3145728/? bytes`.
        public var description: String {
            "\(completedSegments)/\(segmentCount) segments, \(bytesStored)/\(expectedBytes.map(String.init) ?? "?") bytes"
        }
    }

    /// Inserts the segments of one or more downloads, all or none (one transaction).
    /// Throws `.conflict` for a key or ordinal already used, or an unknown download.
    public func insertSegments(_ segments: [SegmentRecord]) async throws(IndexError) {
        try await write { db in
            for segment in segments { try segment.insert(db) }
            for token in Set(segments.map(\.token)) { try Self.refreshBytes(db, token: token) }
        }
    }

    /// Replaces the given segments (e.g. as `PackageFiles.reconcile(segments:)`
    /// returned them), all or none. Throws `.notFound` for a segment not in the index.
    public func saveSegments(_ segments: [SegmentRecord]) async throws(IndexError) {
        try await write { db in
            for segment in segments { try segment.update(db) }
            for token in Set(segments.map(\.token)) { try Self.refreshBytes(db, token: token) }
        }
    }

    /// The segments of the download `token`, in download order (`ordinal`).
    public func segments(for token: String) async throws(IndexError) -> [SegmentRecord] {
        try await read { db in
            try SegmentRecord.filter(Column("token") == token).order(Column("ordinal")).fetchAll(db)
        }
    }

    /// Records a segment complete: call after its `.part` file was synced and renamed
    /// (`PackageFiles.commit(_:)`), never before. `bytes` becomes its expected length
    /// too: the file is the truth now. One write; throws `.notFound` when the segment
    /// is not in the index (its download was deleted meanwhile).
    public func markSegmentComplete(
        token: String, stream: String, index: Int, bytes: Int64, sha256: String?, etag: String?
    ) async throws(IndexError) {
        let key = SegmentRecord.Key(token: token, stream: stream, index: index)
        progressWrites.add(1, ordering: .relaxed)
        try await write { db in
            let changed = try SegmentRecord.filter(key: Self.keyColumns(key)).updateAll(
                db,
                Column("bytes").set(to: bytes), Column("expectedLength").set(to: bytes),
                Column("sha256").set(to: sha256), Column("etag").set(to: Self.value(etag, else: "etag")),
                Column("state").set(to: SegmentRecord.State.complete))
            guard changed == 1 else { throw IndexError.notFound("the segment \(key)") }
            try Self.refreshBytes(db, token: token)
        }
    }

    /// Records a batch of progress reports in one transaction (see `ProgressBatcher`):
    /// each segment's bytes, its ETag and length where the report has them, and the
    /// state `partial` (`pending` at 0 bytes). Reports for segments already complete
    /// (a batch flushed after the completion) or no longer in the index (a deleted
    /// download) are ignored. Returns how many segments were updated.
    @discardableResult
    public func recordProgress(_ updates: [SegmentProgress]) async throws(IndexError) -> Int {
        try await record(ProgressBatcher.Batch(progress: updates))
    }

    /// Records one `ProgressBatcher` batch in one transaction: the progress reports as
    /// `recordProgress(_:)` does, then the completions as `markSegmentComplete` does
    /// (call only for files already committed). Rows no longer in the index (a deleted
    /// download) are skipped. Returns how many segments were updated.
    @discardableResult
    public func record(_ batch: ProgressBatcher.Batch) async throws(IndexError) -> Int {
        guard !batch.isEmpty else { return 0 }
        progressWrites.add(1, ordering: .relaxed)
        return try await write { db in
            var updated = 0
            for update in batch.progress {
                updated += try SegmentRecord
                    .filter(key: Self.keyColumns(update.key))
                    .filter(Column("state") != SegmentRecord.State.complete)
                    .updateAll(
                        db,
                        Column("bytes").set(to: update.bytes),
                        Column("etag").set(to: Self.value(update.etag, else: "etag")),
                        Column("expectedLength").set(to: Self.value(update.expectedLength, else: "expectedLength")),
                        Column("state").set(to: update.bytes > 0 ? SegmentRecord.State.partial : .pending))
            }
            for done in batch.completions {
                updated += try SegmentRecord.filter(key: Self.keyColumns(done.key)).updateAll(
                    db,
                    Column("bytes").set(to: done.bytes), Column("expectedLength").set(to: done.bytes),
                    Column("sha256").set(to: done.sha256), Column("etag").set(to: Self.value(done.etag, else: "etag")),
                    Column("state").set(to: SegmentRecord.State.complete))
            }
            let tokens = Set(batch.progress.map(\.key.token)).union(batch.completions.map(\.key.token))
            for token in tokens { try Self.refreshBytes(db, token: token) }
            return updated
        }
    }

    /// Counts and sizes of the download `token`'s segments. Throws `.notFound` when
    /// there is no such download.
    public func summary(for token: String) async throws(IndexError) -> Summary {
        try await read { db in
            guard try DownloadRecord.exists(db, key: token) else { throw IndexError.notFound("the download \(token)") }
            let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS segmentCount,
                       COALESCE(SUM(state = ?), 0) AS completed,
                       COALESCE(SUM(bytes), 0) AS bytes,
                       COALESCE(SUM(expectedLength), 0) AS expected,
                       COALESCE(SUM(expectedLength IS NULL), 0) AS unknown
                FROM segment WHERE token = ?
                """, arguments: [SegmentRecord.State.complete, token])!
            return Summary(
                segmentCount: row["segmentCount"], completedSegments: row["completed"], bytesStored: row["bytes"],
                knownExpectedBytes: row["expected"], segmentsOfUnknownLength: row["unknown"])
        }
    }

    /// `value`, or the column's current value when `value` is nil (an update that keeps what it does not know).
    private static func value(_ value: (some SQLExpressible)?, else column: String) -> SQLExpression {
        value?.sqlExpression ?? Column(column).sqlExpression
    }

    private static func keyColumns(_ key: SegmentRecord.Key) -> [String: any DatabaseValueConvertible] {
        ["token": key.token, "stream": key.stream, "index": key.index]
    }
}
