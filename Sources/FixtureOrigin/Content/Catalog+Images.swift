import BenchCore

/// Poster and thumbnail images: real PNGs, a diagonal gradient between two colours
/// drawn from (seed, video id), with a darker band every 20 pixels so scaling shows.
extension Catalog {
    /// Size of `poster.png`.
    public static let posterSize = (width: 320, height: 180)
    /// Size of `thumb.png`.
    public static let thumbnailSize = (width: 160, height: 90)

    /// The poster of `video`, a 320×180 PNG.
    public func poster(of video: Video) -> [UInt8] {
        image(of: video, width: Self.posterSize.width, height: Self.posterSize.height)
    }

    /// The thumbnail of `video`, a 160×90 PNG.
    public func thumbnail(of video: Video) -> [UInt8] {
        image(of: video, width: Self.thumbnailSize.width, height: Self.thumbnailSize.height)
    }

    private func image(of video: Video, width: Int, height: Int) -> [UInt8] {
        var generator = SeededGenerator(seed: configuration.seed).derived("image/\(video.id)")
        let from = (Double(generator.next() & 0xFF), Double(generator.next() & 0xFF), Double(generator.next() & 0xFF))
        let to = (Double(generator.next() & 0xFF), Double(generator.next() & 0xFF), Double(generator.next() & 0xFF))
        let span = Double(width + height - 2)
        return PNGEncoder.encode(width: width, height: height) { x, y in
            let t = span > 0 ? Double(x + y) / span : 0
            let shade = (x / 20 + y / 20) % 2 == 0 ? 1.0 : 0.8
            func mix(_ a: Double, _ b: Double) -> UInt8 { UInt8(((a + (b - a) * t) * shade).rounded()) }
            return (mix(from.0, to.0), mix(from.1, to.1), mix(from.2, to.2))
        }
    }
}
