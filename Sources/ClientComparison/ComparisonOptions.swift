import BenchCore
import FixtureOrigin
import Foundation

/// How a comparison is made. A `Sendable` value; `bench compare` fills it from its
/// options, tests shrink the content and the time limit.
public struct ComparisonOptions: Sendable {
    /// The profile whose WiFi and cellular links are the base links, and its file.
    public var profile: Profile
    public var profilePath: String
    /// Seed of the run; mode `i` (in `FaultMode.allCases` order) uses `seed + i` for
    /// every client, so every client meets the same faults.
    public var seed: UInt64
    /// The clients to run, in the order of the table's rows.
    public var clients: [ClientDefinition]
    /// The fault modes, in the order of the table's columns.
    public var modes: [FaultMode]
    public var settings: FaultSettings
    /// Real media (what ffmpeg, yt-dlp and streamlink can read) or synthetic bytes.
    public var media: ContentMedia
    /// The video's duration and its segments' target duration, seconds. Defaults 36 and 6.
    public var videoSeconds: Double
    public var segmentSeconds: Double
    /// How long one whole download should take on the base WiFi link; sizes the video's
    /// bitrate. Default 12 s.
    public var targetSeconds: Double
    /// The most one run may take before the client is killed and reported hung. Default 150 s.
    public var timeLimit: Duration
    /// Where each run's work directory is made.
    public var workDirectory: String
    /// Keep each run's work directory (client output, logs) instead of removing it.
    public var keepWorkDirectories: Bool
    /// The `bench` executable, for the `{bench}` placeholder.
    public var executable: String
    /// Trace connection attempts with strace when it is installed and allowed.
    public var traceConnects: Bool
    /// The strace, ffprobe and ffmpeg executables (names on PATH or paths).
    public var strace: String
    public var ffprobe: String
    public var ffmpeg: String

    /// Creates options; defaults as documented on each field.
    public init(
        profile: Profile, profilePath: String, seed: UInt64, clients: [ClientDefinition], modes: [FaultMode],
        settings: FaultSettings = FaultSettings(), media: ContentMedia, videoSeconds: Double = 36,
        segmentSeconds: Double = 6, targetSeconds: Double = 12, timeLimit: Duration = .seconds(150),
        workDirectory: String = NSTemporaryDirectory(), keepWorkDirectories: Bool = false, executable: String,
        traceConnects: Bool = true, strace: String = "strace", ffprobe: String = "ffprobe", ffmpeg: String = "ffmpeg"
    ) {
        self.profile = profile
        self.profilePath = profilePath
        self.seed = seed
        self.clients = clients
        self.modes = modes
        self.settings = settings
        self.media = media
        self.videoSeconds = videoSeconds
        self.segmentSeconds = segmentSeconds
        self.targetSeconds = targetSeconds
        self.timeLimit = timeLimit
        self.workDirectory = workDirectory
        self.keepWorkDirectories = keepWorkDirectories
        self.executable = executable
        self.traceConnects = traceConnects
        self.strace = strace
        self.ffprobe = ffprobe
        self.ffmpeg = ffmpeg
    }

    /// Whether the content is real media.
    public var isRealMedia: Bool {
        if case .real = media { return true }
        return false
    }

    /// The seed of `mode`: the same for every client.
    public func seed(of mode: FaultMode) -> UInt64 {
        seed &+ UInt64(FaultMode.allCases.firstIndex(of: mode) ?? 0)
    }

    /// Why `client` cannot run here (a missing tool, or media validation of synthetic
    /// content), with what to do; nil when it can.
    public func notRunReason(_ client: ClientDefinition) -> String? {
        let missing = ToolLocator.missing(for: client)
        if !missing.isEmpty {
            return "not installed: \(missing.joined(separator: ", "))" + (client.install.map { "; install with: \($0)" } ?? "")
        }
        if client.validation == .media, !isRealMedia {
            return "its output is judged as media, which needs real media content (--media real)"
        }
        return nil
    }
}

/// What the runner tells whoever shows progress.
public enum ComparisonProgress: Sendable {
    /// Content being made (real media: by ffmpeg), segment `index` of `count`.
    case preparing(index: Int, count: Int)
    /// A note for people (e.g. strace is not available).
    case note(String)
    case runStarted(client: String, mode: FaultMode, index: Int, count: Int)
    /// Every half second while a run goes: time, and the bytes the client has received.
    case running(client: String, mode: FaultMode, elapsed: Duration, limit: Duration, received: Int, content: Int, attempt: Int)
    case runFinished(ClientRunResult)
}

/// Why a comparison could not run at all.
public enum ComparisonError: Error, Sendable, CustomStringConvertible {
    /// The origin or the content could not be started or made.
    case content(String)

    public var description: String {
        switch self {
        case .content(let why): "the comparison's content cannot be served: \(why)"
        }
    }
}
