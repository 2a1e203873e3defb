import Foundation

/// What the bytes of media segments are.
///
/// Playlists, the catalog JSON, subtitles, keys and images are the same in both modes;
/// only `.ts` segments differ.
public enum ContentMedia: Hashable, Sendable {
    /// Deterministic seeded bytes of any size, not decodable (see `Catalog.clearSegment`).
    /// Fast, needs nothing installed; what the harness checks byte for byte.
    case synthetic
    /// H.264/AAC MPEG-TS made by ffmpeg from a synthetic source (test pattern and a tone),
    /// one segment at a time on first request, kept in a cache directory. Players,
    /// ffmpeg and ffprobe accept it. Sizes follow each variant's bitrate
    /// (`CatalogConfiguration.sizeScale` does not apply).
    case real(RealMediaConfiguration)
}

/// How real-media segments are made and where they are kept.
public struct RealMediaConfiguration: Hashable, Sendable {
    /// Directory of generated segments, created when missing. Files are named by a
    /// fingerprint of everything that shapes them, so a stale file is never served and
    /// several origins (or processes) can share the directory.
    public var cacheDirectory: String
    /// The ffmpeg executable: a path, or a name looked up in `PATH`. Default `ffmpeg`.
    public var ffmpeg: String
    /// Video frame rate. Default 25.
    public var frameRate: Int
    /// libx264 preset. Default `superfast`: the fastest that still honours the High
    /// profile the ladder's CODECS announce (`ultrafast` drops to Constrained Baseline).
    public var encoderPreset: String

    /// Creates a configuration; `cacheDirectory` defaults to `defaultCacheDirectory`.
    public init(
        cacheDirectory: String = RealMediaConfiguration.defaultCacheDirectory, ffmpeg: String = "ffmpeg",
        frameRate: Int = 25, encoderPreset: String = "superfast"
    ) {
        self.cacheDirectory = cacheDirectory
        self.ffmpeg = ffmpeg
        self.frameRate = frameRate
        self.encoderPreset = encoderPreset
    }

    /// `$XDG_CACHE_HOME/deadzone/media`, else `~/.cache/deadzone/media`.
    public static var defaultCacheDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".cache")
        return (base as NSString).appendingPathComponent("deadzone/media")
    }
}

/// Why content could not be produced. Synthetic content never fails; real media can.
public enum ContentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The ffmpeg executable was not found.
    case ffmpegNotFound(String)
    /// The cache directory cannot be created or written.
    case cacheDirectoryUnusable(path: String, reason: String)
    /// ffmpeg ran and failed (or the file it wrote cannot be read).
    case encodingFailed(segment: String, status: Int32, message: String)
    /// A recorded resource's file cannot be read, or no longer has its recorded hash.
    case recordedFileChanged(path: String, file: String, reason: String)

    public var description: String {
        switch self {
        case .ffmpegNotFound(let name):
            "ffmpeg not found ('\(name)' is not an executable or not in PATH): install it "
                + "(apt-get install ffmpeg, or DEADZONE_NEEDS_FFMPEG=1 bash .ci/install-deps) or serve synthetic content"
        case .cacheDirectoryUnusable(let path, let reason):
            "media cache directory \(path) is unusable: \(reason); choose another one"
        case .encodingFailed(let segment, let status, let message):
            "ffmpeg failed to make \(segment) (exit \(status)): \(message)"
        case .recordedFileChanged(let path, let file, let reason):
            "the recorded file for \(path) (\(file)) changed since it was recorded: \(reason); run bench record again"
        }
    }
}
