import Foundation
import HLSPlaylist

extension DownloadPlan {
    /// What a stream carries.
    public enum StreamKind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The chosen variant's media playlist (video, and audio when muxed).
        case video
        /// An alternate audio rendition (EXT-X-MEDIA TYPE=AUDIO).
        case audio
        /// A subtitle rendition (EXT-X-MEDIA TYPE=SUBTITLES).
        case subtitles
    }

    /// One media playlist the download needs: where to fetch it and what the stream is
    /// called in the package. Returned by `DownloadPlan.sources(masterURL:selection:)`.
    public struct StreamSource: Sendable, Hashable, Codable {
        /// The stream's name: `video`, `audio_<lang>` or `subs_<lang>` (a safe path
        /// component, generated, never taken from a URL).
        public var name: String
        /// What the stream carries.
        public var kind: StreamKind
        /// The EXT-X-MEDIA tag of an audio or subtitle stream; nil for `video`.
        public var rendition: Rendition?
        /// The absolute URL of the stream's media playlist, resolved against the master
        /// playlist's URL. The key under which `mediaPlaylists` must hold it.
        public var playlistURL: URL
    }

    /// One stream of the plan, with what is known before any byte is fetched.
    public struct Stream: Sendable, Hashable, Codable {
        /// Where the stream comes from and its name.
        public var source: StreamSource
        /// The media playlist as it was given (remote URIs), kept to render the local one.
        public var playlist: MediaPlaylist
        /// The local media playlist's path in the package, e.g. `video.m3u8`, `subs_de.m3u8`.
        public var localPlaylistPath: String
        /// The bits per second the estimate uses; see `DownloadPlan.estimatedBytes`.
        public var bandwidth: Int
        /// The sum of the segment durations, in seconds.
        public var totalDuration: Double

        /// The stream's name: `video`, `audio_<lang>` or `subs_<lang>`.
        public var name: String { source.name }
        /// What the stream carries.
        public var kind: StreamKind { source.kind }
        /// `bandwidth × totalDuration / 8`, rounded up: the size to expect before any
        /// length is known.
        public var estimatedBytes: Int64 { Int64((Double(bandwidth) * totalDuration / 8).rounded(.up)) }
    }

    /// One file to fetch: a media segment, an EXT-X-MAP init section or an HTTP key.
    ///
    /// Its `(stream, index)` is the `SegmentRecord` key and `ordinal` its place in the
    /// plan. Indexes: a segment's is its position in its media playlist (0 for the
    /// first); init sections count down from -1 in order of first use (so they never
    /// clash with a segment); key files are in the stream `DownloadPlan.keyStream`,
    /// numbered from 0.
    public struct Item: Sendable, Hashable, Codable {
        /// What the file is.
        public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
            /// A media segment (or one byte range of a resource).
            case segment
            /// An EXT-X-MAP Media Initialization Section.
            case initSection
            /// The key of an HTTP AES-128 (or SAMPLE-AES) EXT-X-KEY, stored as a file.
            case keyFile
        }

        /// What the file is.
        public var kind: Kind
        /// The stream it belongs to (`DownloadPlan.keyStream` for key files).
        public var stream: String
        /// See the type's documentation.
        public var index: Int
        /// The position in `DownloadPlan.items`.
        public var ordinal: Int
        /// The absolute URL to fetch.
        public var remoteURL: URL
        /// Where the file goes, relative to the package directory, e.g.
        /// `video/seg00017.ts`; generated, so it never leaves the package.
        public var localPath: String
        /// The byte range to fetch (send `rangeHeader`); nil for the whole resource.
        /// Each range becomes a file of its own.
        public var byteRange: ByteRange?
        /// The EXTINF duration in seconds; 0 for init sections and key files.
        public var duration: Double
        /// The EXT-X-KEY in force for a segment or init section; nil when clear.
        public var key: PlannedKey?
        /// The IV that decrypts a segment: the key's IV, else its media sequence number
        /// as a 128-bit big-endian integer (RFC 8216 §5.2); nil when clear.
        public var iv: [UInt8]?
        /// The local path of the init section a segment needs; nil when it has none.
        public var initSectionPath: String?

        /// The `Range` header value for `byteRange`, e.g. `bytes=0-1023`; nil when whole.
        public var rangeHeader: String? { byteRange?.httpRangeHeader }

        /// The `Range` header that fetches the rest of this file when `stored` bytes of it
        /// are already in its `.part` file: within `byteRange` for a range item
        /// (`bytes=<offset+stored>-<end-1>`), else `bytes=<stored>-`. Nil means "send no
        /// Range header": a whole resource with nothing stored. Call it only for a file
        /// with something left to fetch; for a range item whose `stored` already covers
        /// `byteRange` it is also nil, and there is nothing to fetch.
        public func rangeHeader(resumingAt stored: Int64) -> String? {
            guard let range = byteRange else { return stored > 0 ? "bytes=\(stored)-" : nil }
            guard stored > 0 else { return range.httpRangeHeader }
            guard stored < Int64(range.length) else { return nil }
            return ByteRange(length: range.length - Int(stored), offset: range.offset + Int(stored)).httpRangeHeader
        }
    }

    /// An EXT-X-KEY of the plan and what the offline package does with it.
    public struct PlannedKey: Sendable, Hashable, Codable {
        /// Where the key comes from once offline.
        public enum Source: Sendable, Hashable, Codable {
            /// An `skd://` key: kept as it is; the stored license answers it through
            /// the app's key delegate.
            case license(SKDKey)
            /// An `http(s)` key in the `identity` format: fetched once (an `Item` of kind
            /// `keyFile`) and named by its local path in the local playlists.
            case file(remoteURL: URL, localPath: String)
            /// A `data:` key: the key is in the URI itself, kept as it is.
            case inline
        }

        /// The EXT-X-KEY as written (method, URI, IV, KEYFORMAT, KEYFORMATVERSIONS).
        public var key: EncryptionKey
        /// Where the key comes from once offline.
        public var source: Source

        /// The URI the local playlists give: the `skd://` or `data:` URI, or the key
        /// file's local path.
        public var localURI: String {
            switch source {
            case .license, .inline: key.uri
            case .file(_, let localPath): localPath
            }
        }

        /// The EXT-X-KEY of the local playlists: `key` with `localURI`.
        public var localKey: EncryptionKey {
            var local = key
            local.uri = localURI
            return local
        }
    }

    /// An `skd://<asset-id>/<key-id>` key URI, split into what a license request names.
    public struct SKDKey: Sendable, Hashable, Codable {
        /// The URI as written.
        public var uri: String
        /// The first component: the asset the license is for.
        public var assetID: String
        /// The second component: the content key's id.
        public var keyID: String

        /// Splits `uri`; nil unless it is `skd://` followed by two non-empty components
        /// separated by one `/` (the scheme's case is ignored).
        public init?(uri: String) {
            let prefix = "skd://"
            guard uri.count > prefix.count, uri.prefix(prefix.count).lowercased() == prefix else { return nil }
            let parts = uri.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
            self.uri = uri
            assetID = String(parts[0])
            keyID = String(parts[1])
        }
    }
}
