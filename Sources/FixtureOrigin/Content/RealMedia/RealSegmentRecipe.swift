import Crypto

/// The ffmpeg command that makes one real-media segment: a pure function of the catalog,
/// the segment and the `RealMediaConfiguration`, so it can be tested without ffmpeg.
///
/// Each segment is its own encode of `testsrc2` (video) and `sine` (audio), with
/// timestamps offset to the segment's start so that the segments of a stream play as
/// one: the muxer marks each stream's first packet as a discontinuity (continuity
/// counters restart), and the audio is cut a little short of the segment so that the
/// AAC encoder's priming frame never makes it overlap the next one.
public struct RealSegmentRecipe: Hashable, Sendable {
    /// Video id, stream and index: where the file goes and what errors name.
    public let videoID: String
    public let stream: String
    public let index: Int
    /// ffmpeg arguments without the executable and the output path.
    public let arguments: [String]

    /// Audio sample rate of every stream.
    static let sampleRate = 48_000
    /// Samples per AAC-LC frame.
    static let aacFrame = 1024

    /// The recipe of segment `index` of `stream`, or nil when the video has no such segment.
    public init?(catalog: Catalog, video: Video, stream: String, index: Int, configuration: RealMediaConfiguration) {
        guard let bandwidth = video.bandwidth(ofStream: stream), (0..<catalog.segmentCount(of: video)).contains(index)
        else { return nil }
        let variant = video.variants.first { $0.name == stream }
        let duration = catalog.duration(ofSegment: index, of: video)
        let start = Double(index) * catalog.configuration.segmentDuration
        var args = ["-nostdin", "-hide_banner", "-v", "error", "-y"]
        let resolution = variant?.resolution
        let hasAudio = resolution == nil || video.audioTracks.isEmpty
        if let resolution {
            args += ["-f", "lavfi", "-i",
                     "testsrc2=size=\(resolution.width)x\(resolution.height):rate=\(configuration.frameRate):duration=\(Self.decimal(duration))"]
        }
        if hasAudio {
            let tone = Self.toneFrequency(video: video, stream: stream)
            args += ["-f", "lavfi", "-i", "sine=frequency=\(tone):sample_rate=\(Self.sampleRate)",
                     "-af", "atrim=end_sample=\(Self.audioSamples(duration: duration))"]
        }
        let audioBitrate = resolution == nil ? min(96_000, bandwidth * 3 / 4) : 64_000
        if resolution != nil {
            let videoBitrate = max(50_000, bandwidth * 4 / 5 - (hasAudio ? audioBitrate : 0))
            let (profile, level) = Self.h264ProfileAndLevel(codecs: variant?.codecs ?? "")
            args += ["-c:v", "libx264", "-preset", configuration.encoderPreset, "-profile:v", profile, "-level:v", level,
                     "-pix_fmt", "yuv420p", "-g", String(Int(duration.rounded(.up)) * configuration.frameRate + 1),
                     "-b:v", String(videoBitrate), "-maxrate", String(videoBitrate), "-bufsize", String(videoBitrate * 2)]
        }
        if hasAudio {
            args += ["-c:a", "aac", "-b:a", String(audioBitrate), "-ac", "2"]
        }
        args += ["-output_ts_offset", Self.decimal(start), "-avoid_negative_ts", "disabled",
                 "-mpegts_flags", "+initial_discontinuity",
                 "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact", "-f", "mpegts"]
        self.videoID = video.id
        self.stream = stream
        self.index = index
        self.arguments = args
    }

    /// 16 hex digits of SHA-256 over the arguments: equal recipes share a file.
    public var fingerprint: String {
        Hex.string(SHA256.hash(data: Array(arguments.joined(separator: "\u{0}").utf8)).prefix(8))
    }

    /// `{video}/{stream}/seg{N}-{fingerprint}.ts`, relative to the cache directory.
    public var relativePath: String {
        "\(videoID)/\(stream)/seg\(index)-\(fingerprint).ts"
    }

    /// Audio samples to encode for a segment of `duration` seconds: whole AAC frames, one
    /// frame short (the encoder adds a priming frame), so the audio ends before the next
    /// segment begins.
    static func audioSamples(duration: Double) -> Int {
        let frames = Int((duration * Double(sampleRate) / Double(aacFrame)).rounded(.down)) - 1
        return max(1, frames) * aacFrame
    }

    /// A tone per audio stream, so alternate languages are told apart by ear.
    static func toneFrequency(video: Video, stream: String) -> Int {
        let tones = [440, 554, 659, 880, 988]
        let position = video.audioTracks.firstIndex { $0.streamName == stream } ?? 0
        return tones[position % tones.count]
    }

    /// libx264 profile and level from an RFC 6381 `avc1.PPCCLL` code; High 4.0 otherwise.
    static func h264ProfileAndLevel(codecs: String) -> (profile: String, level: String) {
        guard let avc = codecs.split(separator: ",").first(where: { $0.hasPrefix("avc1.") }),
            avc.count == 11, let value = UInt32(avc.dropFirst(5), radix: 16)
        else { return ("high", "4.0") }
        let profile: String
        switch value >> 16 {
        case 0x42: profile = "baseline"
        case 0x4D: profile = "main"
        default: profile = "high"
        }
        let level = Int(value & 0xFF)
        return (profile, "\(level / 10).\(level % 10)")
    }

    /// A decimal without exponent or trailing zeros, for ffmpeg options.
    static func decimal(_ value: Double) -> String {
        let millis = Int((value * 1000).rounded())
        let whole = millis / 1000, fraction = millis % 1000
        guard fraction != 0 else { return String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }
}
