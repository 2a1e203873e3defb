/// A `decimal-resolution` such as `1280x720` (RFC 8216 §4.2).
public struct Resolution: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a resolution of `width` × `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `WIDTHxHEIGHT`, as written in playlists.
    public var description: String { "\(width)x\(height)" }
}
