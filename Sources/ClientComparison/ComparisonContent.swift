import FixtureOrigin

/// The one video of a comparison: a single variant (so every client fetches the same
/// segments), sized so that downloading it takes about `targetSeconds` on the base link.
public enum ComparisonContent {
    /// The video's id: `/videos/compare/master.m3u8`.
    public static let videoID = "compare"

    /// A one-variant video of `durationSeconds` whose bitrate makes it take about
    /// `targetSeconds` at `rate` bits per second (between 100 kbit/s and 8 Mbit/s). Its
    /// resolution and CODECS are those of the standard ladder rung nearest below it.
    public static func video(rate: Double, targetSeconds: Double, durationSeconds: Double) -> Video {
        let bandwidth = Int((rate * targetSeconds / durationSeconds).rounded()).clamped(100_000, 8_000_000)
        let ladder = Catalog.standardVariants.filter { !$0.isAudioOnly }.sorted { $0.bandwidth < $1.bandwidth }
        let rung = ladder.last { $0.bandwidth <= bandwidth * 3 / 2 } ?? ladder[0]
        let variant = VideoVariant(
            name: "\(bandwidth / 1000)k", bandwidth: bandwidth, averageBandwidth: bandwidth * 9 / 10,
            resolution: rung.resolution, codecs: rung.codecs)
        return Video(id: videoID, name: "Comparison Sample", duration: durationSeconds, variants: [variant])
    }

    /// The variant's segments as `store` serves them (made now when not yet cached:
    /// real media is encoded by ffmpeg), each one reported to `progress`.
    /// - Throws: `ContentError` when a segment cannot be made.
    public static func segments(
        of video: Video, in store: ContentStore, progress: (Int, Int) -> Void = { _, _ in }
    ) throws(ContentError) -> [[UInt8]] {
        let stream = video.variants[0].name
        let count = store.catalog.segmentCount(of: video)
        var segments: [[UInt8]] = []
        for index in 0..<count {
            progress(index, count)
            guard let resource = try store.loadResource(at: .segment(videoID: video.id, stream: stream, index: index)) else {
                throw .encodingFailed(segment: "\(video.id)/\(stream)/seg\(index).ts", status: -1, message: "the origin has no such segment")
            }
            segments.append(resource.bytes)
        }
        progress(count, count)
        return segments
    }
}

extension Int {
    func clamped(_ low: Int, _ high: Int) -> Int { Swift.min(high, Swift.max(low, self)) }
}
