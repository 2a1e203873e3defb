import GRDB

/// One media file of a download (a segment, an init section, a subtitle file): a row
/// of the `segment` table, keyed by (token, stream, index).
///
/// Inserted in bulk when the download's playlists are known
/// (`DownloadIndex.insertSegments`), advanced by batched progress
/// (`recordProgress`) and marked complete once its file is committed
/// (`markSegmentComplete`). At start-up `PackageFiles.reconcile(segments:)` checks
/// each record against the disk.
public struct SegmentRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    /// The table's name.
    public static let databaseTableName = "segment"

    /// How far a segment's file has come.
    public enum State: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// Nothing is stored: the transfer starts at byte 0.
        case pending
        /// `bytes` bytes are in the `.part` file: the transfer resumes with `Range: bytes=<bytes>-`.
        case partial
        /// The final file is synced, renamed and holds `bytes` bytes.
        case complete

        /// The raw value, e.g. `partial`.
        public var description: String { rawValue }
    }

    /// What names a segment: its download, its stream and its index in that stream.
    public struct Key: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The download's token.
        public var token: String
        /// The stream, e.g. `video`, `audio_fr`, `subs_de`.
        public var stream: String
        /// The position in the stream's media playlist (0 for the first segment).
        public var index: Int

        /// Creates a key.
        public init(token: String, stream: String, index: Int) {
            self.token = token
            self.stream = stream
            self.index = index
        }

        /// `token/stream#index`.
        public var description: String { "\(token)/\(stream)#\(index)" }
    }

    /// The download's token.
    public var token: String
    /// The stream, e.g. `video`, `audio_fr`, `subs_de`.
    public var stream: String
    /// The position in the stream's media playlist (0 for the first segment).
    public var index: Int
    /// The download order across all streams of the download, chosen by the engine;
    /// unique per download. `DownloadIndex.segments(for:)` lists segments in this order.
    public var ordinal: Int
    /// The segment's absolute remote URL.
    public var uri: String
    /// The final file's path, relative to the package directory (e.g. `video/00012.ts`).
    public var localPath: String
    /// The full length in bytes, once learnt from Content-Length or Content-Range.
    public var expectedLength: Int64?
    /// The bytes stored so far (in the `.part` file, or the final file when complete).
    public var bytes: Int64
    /// The origin's ETag, to send as If-Range when resuming.
    public var etag: String?
    /// The SHA-256 of the complete file, lowercase hex.
    public var sha256: String?
    /// How far the file has come.
    public var state: State

    /// Creates a record; by default nothing is stored yet.
    public init(
        token: String, stream: String, index: Int, ordinal: Int, uri: String, localPath: String,
        expectedLength: Int64? = nil, bytes: Int64 = 0, etag: String? = nil, sha256: String? = nil,
        state: State = .pending
    ) {
        self.token = token
        self.stream = stream
        self.index = index
        self.ordinal = ordinal
        self.uri = uri
        self.localPath = localPath
        self.expectedLength = expectedLength
        self.bytes = bytes
        self.etag = etag
        self.sha256 = sha256
        self.state = state
    }

    /// The segment's key.
    public var key: Key { Key(token: token, stream: stream, index: index) }
}

/// Progress of one segment's transfer, as the engine reports it to `ProgressBatcher`
/// and `DownloadIndex.recordProgress(_:)`.
public struct SegmentProgress: Sendable, Hashable {
    /// The segment.
    public var key: SegmentRecord.Key
    /// The bytes now in the `.part` file (a total, not an increment).
    public var bytes: Int64
    /// The ETag the origin sent, when it sent one.
    public var etag: String?
    /// The full length, when the response told it.
    public var expectedLength: Int64?

    /// Creates a progress report.
    public init(key: SegmentRecord.Key, bytes: Int64, etag: String? = nil, expectedLength: Int64? = nil) {
        self.key = key
        self.bytes = bytes
        self.etag = etag
        self.expectedLength = expectedLength
    }

    /// This report followed by a later one for the same segment: the later bytes, and
    /// the later ETag and length where it has them.
    public func merged(with later: SegmentProgress) -> SegmentProgress {
        SegmentProgress(
            key: key, bytes: later.bytes, etag: later.etag ?? etag,
            expectedLength: later.expectedLength ?? expectedLength)
    }
}
