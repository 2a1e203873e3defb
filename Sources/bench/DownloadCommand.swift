import ArgumentParser
import BenchCore
import Foundation
import OfflineDownloads

/// `bench download`: the offline download engine on its own, for one video of a catalog.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download catalog videos for offline playback with Deadzone's engine.",
        discussion: """
            Each VIDEO is a catalog entry URL, e.g. http://127.0.0.1:8080/videos/clear (from `bench origin`); \
            several download at once (two at a time, the rest queued). \
            The download is kept in --storage (an SQLite index and one package per download); run the \
            command again on the same storage to resume it, telling it how the last run ended with \
            --after (crash resumes; force-quit reports interrupted downloads as failed). Prints one line \
            per state change and per 10% of progress; exits 0 once every video is playable offline, 1 if \
            a download failed, 2 for bad input.
            With --export FILE (one clear video), the engine acts as a black-box client: once the video \
            is downloaded, the segments of its chosen video variant are written to FILE, concatenated in \
            playlist order, byte for byte as the origin served them.
            Example: swift run bench download http://127.0.0.1:8080/videos/clear --storage /tmp/offline
            """
    )

    @Argument(help: "Catalog entry URLs of the videos.")
    var videos: [String]

    @Option(help: "Directory of the download index and packages.")
    var storage: String

    @Option(help: "Send every request to this host:port instead (e.g. a `bench proxy` interface).")
    var via: String?

    @Option(help: "Requested bitrate in bits/s (default: the lowest variant with video).")
    var bitrate: Int?

    @Option(help: "How the previous run on this storage ended: clean, crash, memoryPressure, userForceQuit, rebootWhileSuspended.")
    var after: String = "clean"

    @Option(help: "Seconds without bytes before the download suspends (stall timeout).")
    var stallTimeout: Double = 8

    @Option(help: ArgumentHelp(
        "Once the video is downloaded, write its video variant's segments, concatenated in playlist order, to this file.",
        discussion: "Takes exactly one clear (unencrypted) VIDEO.", valueName: "file"))
    var export: String?

    func validate() throws {
        guard !videos.isEmpty else { throw ValidationError("name at least one VIDEO") }
        for video in videos {
            guard let url = URL(string: video), url.scheme == "http" || url.scheme == "https" else {
                throw ValidationError("VIDEO must be an http(s) URL of a catalog entry, e.g. http://127.0.0.1:8080/videos/clear")
            }
        }
        guard ProcessTermination(rawValue: after) != nil else {
            throw ValidationError("--after must be one of \(ProcessTermination.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let via, via.split(separator: ":").count != 2 { throw ValidationError("--via must be host:port") }
        guard stallTimeout > 0 else { throw ValidationError("--stall-timeout must be positive") }
        if export != nil, videos.count != 1 {
            badInput("--export writes one video's segments: name exactly one VIDEO (got \(videos.count))")
        }
    }

    func run() async throws {
        let download = CommandLineDownload(
            videos: videos.compactMap(URL.init(string:)), storage: storage, via: via, bitrate: bitrate,
            after: ProcessTermination(rawValue: after) ?? .clean, stallTimeout: .milliseconds(Int64(stallTimeout * 1000)),
            export: export)
        let failed: [String]
        do {
            failed = try await download.run { line in
                print(line)
                fflush(nil)
            }
        } catch { exitWithError(error.description, code: error.exitCode) }
        for line in failed { FileHandle.standardError.writeSurvivingSignals(Data("error: \(line)\n".utf8)) }
        if !failed.isEmpty { throw ExitCode(1) }
    }
}

/// Prints `message` on stderr and exits 2 (bad input).
private func badInput(_ message: String) -> Never { exitBadInput(message) }
