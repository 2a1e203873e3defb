import BenchCore
import Foundation

/// `bench download`'s work: the engine on its own, downloading catalog videos into a
/// storage directory, resuming what that storage already holds, printing one line per
/// state change and per 10 % of progress, and optionally exporting one clear video's
/// segments. The command only parses its arguments into this and maps the outcome to
/// an exit status.
public struct CommandLineDownload: Sendable {
    /// Catalog entry URLs (e.g. `http://127.0.0.1:8080/videos/clear`).
    public var videos: [URL]
    public var storage: String
    /// `host:port` every request goes to instead (a `bench proxy` interface), or nil.
    public var via: String?
    public var bitrate: Int?
    /// How the previous run on this storage ended.
    public var after: ProcessTermination
    public var stallTimeout: Duration
    /// Where to write the one video's concatenated segments once downloaded, or nil.
    public var export: String?

    /// A download run's parameters.
    public init(
        videos: [URL], storage: String, via: String?, bitrate: Int?, after: ProcessTermination, stallTimeout: Duration,
        export: String?
    ) {
        self.videos = videos
        self.storage = storage
        self.via = via
        self.bitrate = bitrate
        self.after = after
        self.stallTimeout = stallTimeout
        self.export = export
    }

    /// Why a run stopped short: bad input (exit 2) or a failure of the run (exit 1).
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
        /// 2 for bad input (a storage that cannot open, a catalog that cannot be read, an
        /// encrypted video to export), 1 otherwise.
        public var exitCode: Int32
    }

    /// Downloads every video, printing through `print`; returns one line per download
    /// that failed (`<token> failed: <why>`; empty when every video is playable
    /// offline). Throws `Failure` when it cannot go on.
    public func run(print: @escaping @Sendable (String) -> Void) async throws(Failure) -> [String] {
        let path: any NetworkPathProvider = via.map {
            NetworkPathFeed(NetworkPath(interfaces: [PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: $0)]))
        } ?? DirectNetworkPath()
        var configuration = EngineConfiguration(storageDirectory: storage)
        configuration.transport.stallTimeout = stallTimeout
        let manager: DownloadManager
        do { manager = try DownloadManager(configuration: configuration, path: path) } catch {
            throw Failure(description: "\(error)", exitCode: 2)
        }
        let printer = Task {
            var log = EngineEventLog()
            for await event in manager.events { if let line = log.line(for: event) { print(line) } }
        }
        defer { printer.cancel() }
        await manager.start(after: after)
        var tokens: [DownloadToken] = []
        do {
            for url in videos { tokens.append(try await request(url, from: manager, via: path, print: print)) }
        } catch {
            await manager.shutdown()
            throw error
        }
        while await !settled(tokens, in: manager) { try? await Task.sleep(for: .milliseconds(50)) }
        var failed: [String] = []
        for token in tokens {
            let status = await manager.status(token)
            if status?.state == .downloaded, let offline = await manager.offlineVideo(token) {
                print("downloaded \(token): \(offline.masterPlaylist.path)")
                if let export {
                    do {
                        let stream = try await manager.storedStream(token)
                        let bytes = try stream.export(to: export)
                        print("exported \(stream.segments.count) segments (\(bytes) bytes) to \(export)")
                    } catch {
                        await manager.shutdown()
                        let standalone = (error as? StreamExportError).map { if case .notStandalone = $0 { false } else { true } }
                        throw Failure(description: "\(error)", exitCode: standalone == false ? 2 : 1)
                    }
                }
            } else {
                failed.append("\(token) failed: \(status?.failure?.description ?? "unknown")")
            }
        }
        await manager.shutdown()
        return failed
    }

    /// Resumes the download of `url` this storage already has, or requests it.
    private func request(
        _ url: URL, from manager: DownloadManager, via path: any NetworkPathProvider, print: @Sendable (String) -> Void
    ) async throws(Failure) -> DownloadToken {
        if let existing = await manager.statuses.first(where: { $0.videoID == url.lastPathComponent }) {
            print("resuming \(existing.token) (\(existing.state))")
            return existing.token
        }
        let entry: CatalogVideo
        do { entry = try await CatalogVideo.fetch(url, via: path) } catch { throw Failure(description: "\(error)", exitCode: 2) }
        if export != nil, entry.document.sources.contains(where: { !($0.keySystems ?? []).isEmpty }) {
            throw Failure(
                description: "--export needs a clear video: \(url.lastPathComponent) is encrypted, and its segments are not the media",
                exitCode: 2)
        }
        let token: DownloadToken
        do { token = try await manager.requestDownload(video: entry, parameters: DownloadParameters(requestedBitrate: bitrate)) } catch {
            throw Failure(description: "\(error)", exitCode: 2)
        }
        print("requested \(token) (\(url.lastPathComponent))")
        return token
    }

    /// Whether every download is downloaded or failed.
    private func settled(_ tokens: [DownloadToken], in manager: DownloadManager) async -> Bool {
        for token in tokens where ![.downloaded, .failed].contains(await manager.status(token)?.state) { return false }
        return true
    }
}
