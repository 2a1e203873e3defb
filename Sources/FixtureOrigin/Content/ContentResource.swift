import Crypto
import Foundation

/// One resource the origin serves: its bytes and the headers that describe them.
///
/// Built by `ContentStore.resource(at:)`; the HTTP server owns the value and answers
/// `Content-Type`, `ETag`, `Last-Modified`, `Range` and `If-Range` from it.
public struct ContentResource: Hashable, Sendable {
    /// `Content-Type` header value.
    public var contentType: String
    /// The full body.
    public var bytes: [UInt8]
    /// SHA-256 of `bytes`, lowercase hex.
    public var sha256: String
    /// Strong `ETag` header value: the SHA-256 hex in double quotes, so equal bytes
    /// always have equal tags and any change of a byte changes the tag.
    public var etag: String
    /// `Last-Modified`: the catalog's fixed build date.
    public var lastModified: Date
    /// `lastModified` as an HTTP date, formatted once (formatting is slow and locked).
    public var lastModifiedHeader: String

    /// Creates a resource, hashing `bytes` for `sha256` and `etag`.
    public init(contentType: String, bytes: [UInt8], lastModified: Date) {
        self.contentType = contentType
        self.bytes = bytes
        self.sha256 = Hex.string(SHA256.hash(data: bytes))
        self.etag = "\"\(sha256)\""
        self.lastModified = lastModified
        self.lastModifiedHeader = HTTPDate.format(lastModified)
    }
}

extension ContentResource {
    /// `Content-Type` of the catalog JSON.
    public static let jsonType = "application/json"
    /// `Content-Type` of HLS playlists (RFC 8216 §4).
    public static let playlistType = "application/vnd.apple.mpegurl"
    /// `Content-Type` of MPEG-TS segments.
    public static let transportStreamType = "video/mp2t"
    /// `Content-Type` of WebVTT segments.
    public static let webVTTType = "text/vtt"
    /// `Content-Type` of the raw AES key.
    public static let keyType = "application/octet-stream"
    /// `Content-Type` of posters and thumbnails.
    public static let pngType = "image/png"
}
