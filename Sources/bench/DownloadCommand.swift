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
        let path: any NetworkPathProvider = via.map {
            NetworkPathFeed(NetworkPath(interfaces: [PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: $0)]))
        } ?? DirectNetworkPath()
        var configuration = EngineConfiguration(storageDirectory: storage)
        configuration.transport.stallTimeout = .milliseconds(Int64(stallTimeout * 1000))
        let manager: DownloadManager
        do { manager = try DownloadManager(configuration: configuration, path: path) } catch {
            fail("\(error)", code: 2)
        }
        let printer = Task { await Self.report(manager.events) }
        await manager.start(after: ProcessTermination(rawValue: after) ?? .clean)
        var tokens: [DownloadToken] = []
        for video in videos {
            let url = URL(string: video)!
            if let existing = await manager.statuses.first(where: { $0.videoID == url.lastPathComponent }) {
                tokens.append(existing.token)
                print("resuming \(existing.token) (\(existing.state))")
                continue
            }
            let entry: CatalogVideo
            do { entry = try await CatalogVideo.fetch(url, via: path) } catch let error as CatalogFetchError { fail("\(error)", code: 2) }
            if export != nil, entry.document.sources.contains(where: { !($0.keySystems ?? []).isEmpty }) {
                await manager.shutdown()
                badInput("--export needs a clear video: \(url.lastPathComponent) is encrypted, and its segments are not the media")
            }
            do {
                tokens.append(try await manager.requestDownload(video: entry, parameters: DownloadParameters(requestedBitrate: bitrate)))
            } catch {
                await manager.shutdown()
                fail("\(error)", code: 2)
            }
            print("requested \(tokens.last!) (\(url.lastPathComponent))")
        }
        fflush(nil)
        while await !Self.settled(tokens, in: manager) {
            try await Task.sleep(for: .milliseconds(50))
        }
        var failed = false
        for token in tokens {
            let status = await manager.status(token)
            if status?.state == .downloaded, let offline = await manager.offlineVideo(token) {
                print("downloaded \(token): \(offline.masterPlaylist.path)")
                if let export { await Self.export(token, of: manager, to: export) }
            } else {
                failed = true
                FileHandle.standardError.writeSurvivingSignals(Data("error: \(token) failed: \(status?.failure?.description ?? "unknown")\n".utf8))
            }
        }
        await manager.shutdown()
        printer.cancel()
        if failed { throw ExitCode(1) }
    }

    /// Writes the stored segments of `token`'s video variant, concatenated in playlist
    /// order, to `file`. Exits 2 for an encrypted or init-section stream, 1 when the files
    /// cannot be read or written.
    private static func export(_ token: DownloadToken, of manager: DownloadManager, to file: String) async {
        do {
            let stream = try await manager.storedStream(token)
            let bytes = try stream.export(to: file)
            print("exported \(stream.segments.count) segments (\(bytes) bytes) to \(file)")
        } catch {
            await manager.shutdown()
            fail("\(error)", code: (error as? StreamExportError).map { if case .notStandalone = $0 { 2 } else { 1 } } ?? 1)
        }
    }

    /// Whether every download is downloaded or failed.
    private static func settled(_ tokens: [DownloadToken], in manager: DownloadManager) async -> Bool {
        for token in tokens where ![.downloaded, .failed].contains(await manager.status(token)?.state) { return false }
        return true
    }

    private static func report(_ events: AsyncStream<EngineEvent>) async {
        var log = EngineEventLog()
        for await event in events {
            guard let line = log.line(for: event) else { continue }
            print(line)
            fflush(nil)
        }
    }
}

/// Prints `message` on stderr and exits 2 (bad input).
private func badInput(_ message: String) -> Never {
    fail(message, code: 2)
}

/// Prints `message` on stderr and exits with `code`.
private func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.writeSurvivingSignals(Data("error: \(message)\n".utf8))
    exit(code)
}
