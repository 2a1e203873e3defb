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
            let entry = try await Self.catalogEntry(url, via: path)
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
    /// order, to `file` (through a temporary file renamed into place). Exits 2 for an
    /// encrypted or init-section stream, 1 when the files cannot be read or written.
    private static func export(_ token: DownloadToken, of manager: DownloadManager, to file: String) async {
        let stream: StoredStream
        do { stream = try await manager.storedStream(token) } catch {
            await manager.shutdown()
            fail("\(error)", code: 1)
        }
        guard !stream.isEncrypted, !stream.hasInitSection else {
            await manager.shutdown()
            badInput("--export needs clear segments that stand alone: this video's are \(stream.isEncrypted ? "encrypted" : "fMP4 with an init section")")
        }
        let temporary = file + ".part"
        var bytes = 0
        do {
            guard FileManager.default.createFile(atPath: temporary, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
            }
            let output = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            defer { try? output.close() }
            for segment in stream.segments {
                let data = try Data(contentsOf: segment)
                try output.write(contentsOf: data)
                bytes += data.count
            }
            try output.synchronize()
            guard rename(temporary, file) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file, NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            await manager.shutdown()
            fail("cannot export to \(file): \(error)", code: 1)
        }
        print("exported \(stream.segments.count) segments (\(bytes) bytes) to \(file)")
    }

    /// Whether every download is downloaded or failed.
    private static func settled(_ tokens: [DownloadToken], in manager: DownloadManager) async -> Bool {
        for token in tokens where ![.downloaded, .failed].contains(await manager.status(token)?.state) { return false }
        return true
    }

    private static func catalogEntry(_ url: URL, via path: any NetworkPathProvider) async throws -> CatalogVideo {
        let transport = HTTPTransport()
        defer { Task { try? await transport.shutdown() } }
        let answer = try await transport.fetch(url, via: path.currentPath.interfaces.first)
        guard answer.status == 200, let document = try? JSONDecoder().decode(VideoDocument.self, from: Data(answer.body)) else {
            fail("\(url) did not answer a catalog entry (HTTP \(answer.status))", code: 2)
        }
        return CatalogVideo(document: document, catalogURL: url)
    }

    private static func report(_ events: AsyncStream<EngineEvent>) async {
        var reported: [String: Int] = [:]
        for await event in events {
            switch event {
            case .stateChanged(let token, let from, let to): print("\(token) \(from) -> \(to)")
            case .progress(let token, let selection, let fraction):
                let decile = Int(fraction * 10)
                if decile > reported[selection, default: -1] {
                    reported[selection] = decile
                    print("\(token) \(selection) \(decile * 10)%")
                }
            case .licenseAcquired(let token, let expiration): print("\(token) license acquired, expires \(expiration)")
            case .licenseRenewed(let token, let expiration): print("\(token) license renewed, expires \(expiration)")
            case .licenseFailed(let token, let reason): print("\(token) license failed: \(reason)")
            case .evicted(let token, let expiredAt): print("\(token) evicted: its download expired at \(expiredAt)")
            case .error(let token, let message): print("\(token.map(\.rawValue) ?? "engine") error: \(message)")
            default: continue
            }
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
