/// WebVTT subtitle segments: real WebVTT text whose cues line up with the media timeline.
extension Catalog {
    /// Length of one synthetic cue, in seconds.
    public static let cueDuration = 2.0

    /// The WebVTT text of subtitle segment `index` in `language`, or nil if the video
    /// has no such track or segment.
    ///
    /// Starts with `WEBVTT` and an `X-TIMESTAMP-MAP` (MPEG-TS 0 = local 0), then one cue
    /// per `cueDuration` seconds of the segment, e.g. `[de] Multilingual Sample — cue 4`.
    /// Timestamps are absolute media time, as HLS requires.
    public func subtitleSegment(of video: Video, language: String, index: Int) -> String? {
        guard video.textTracks.contains(where: { $0.language == language }),
            (0..<segmentCount(of: video)).contains(index)
        else { return nil }
        let start = Double(index) * configuration.segmentDuration
        let end = start + duration(ofSegment: index, of: video)
        var lines = ["WEBVTT", "X-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000", ""]
        var cue = Int((start / Self.cueDuration).rounded(.down))
        while Double(cue) * Self.cueDuration < end - 1e-9 {
            let cueStart = max(start, Double(cue) * Self.cueDuration)
            let cueEnd = min(end, Double(cue + 1) * Self.cueDuration)
            lines.append("\(video.id)-\(language)-\(cue)")
            lines.append("\(Self.timestamp(cueStart)) --> \(Self.timestamp(cueEnd))")
            lines.append("[\(language)] \(video.name) — cue \(cue)")
            lines.append("")
            cue += 1
        }
        return lines.joined(separator: "\n")
    }

    /// `hh:mm:ss.mmm`.
    static func timestamp(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        let (h, m, s, ms) = (millis / 3_600_000, millis / 60_000 % 60, millis / 1000 % 60, millis % 1000)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(h, 2)):\(pad(m, 2)):\(pad(s, 2)).\(pad(ms, 3))"
    }
}
