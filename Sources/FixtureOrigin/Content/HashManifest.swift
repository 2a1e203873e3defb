import Crypto

/// SHA-256 of everything a video serves, per path, so the harness can check downloaded
/// files byte for byte against what the origin sent and, for encrypted segments,
/// against the clear bytes a client should get after decryption.
///
/// Codable with snake_case keys; build it with `ContentStore.hashManifest(videoIDs:)`.
/// The origin serves one video's manifest as JSON at `GET /videos/{id}/manifest.json`,
/// made on a generator thread on first request and cached.
public struct HashManifest: Hashable, Sendable, Codable {
    /// The hashes of one path.
    public struct Entry: Hashable, Sendable, Codable {
        /// SHA-256 (lowercase hex) of the bytes served at the path.
        public var sha256: String
        /// Number of bytes served.
        public var byteCount: Int
        /// SHA-256 of the clear bytes: differs from `sha256` only for encrypted segments.
        public var clearSHA256: String
        /// Number of clear bytes.
        public var clearByteCount: Int

        enum CodingKeys: String, CodingKey {
            case sha256
            case byteCount = "byte_count"
            case clearSHA256 = "clear_sha256"
            case clearByteCount = "clear_byte_count"
        }

        /// Creates an entry.
        public init(sha256: String, byteCount: Int, clearSHA256: String, clearByteCount: Int) {
            self.sha256 = sha256
            self.byteCount = byteCount
            self.clearSHA256 = clearSHA256
            self.clearByteCount = clearByteCount
        }
    }

    /// The catalog seed the hashes were computed under.
    public var seed: UInt64
    /// Entries keyed by canonical path (`ContentPath.path`).
    public var entries: [String: Entry]

    /// Creates a manifest.
    public init(seed: UInt64, entries: [String: Entry]) {
        self.seed = seed
        self.entries = entries
    }
}

extension ContentStore {
    /// The manifest of the videos with `videoIDs` (every video when nil; unknown ids are
    /// skipped), covering every path of `paths(of:)`.
    ///
    /// Generates every segment once: cheap at test scales, but at `sizeScale` 1 the
    /// `large` video alone is gigabytes, so pass the ids you need. With real media it
    /// makes every missing segment with ffmpeg, and throws if one fails.
    public func hashManifest(videoIDs: [String]? = nil) throws(ContentError) -> HashManifest {
        let videos = videoIDs.map { ids in ids.compactMap { catalog.video(withID: $0) } } ?? catalog.videos
        var entries: [String: HashManifest.Entry] = [:]
        for video in videos {
            for path in paths(of: video) {
                guard let served = try loadResource(at: path) else { continue }
                var clear = (sha256: served.sha256, count: served.bytes.count)
                if case .segment(_, let stream, let index) = path, video.protection.isEncrypted,
                    let bytes = try clearSegment(of: video, stream: stream, index: index)
                {
                    clear = (Hex.string(SHA256.hash(data: bytes)), bytes.count)
                }
                entries[path.path] = HashManifest.Entry(
                    sha256: served.sha256, byteCount: served.bytes.count, clearSHA256: clear.sha256,
                    clearByteCount: clear.count)
            }
        }
        return HashManifest(seed: catalog.configuration.seed, entries: entries)
    }
}
