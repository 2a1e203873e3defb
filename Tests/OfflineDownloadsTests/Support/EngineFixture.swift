import BenchCore
import FixtureOrigin
import Foundation
import OfflineDownloads

/// A real origin, a scratch storage directory and a `DownloadManager` over them.
struct EngineFixture {
    let server: OriginServer
    let scratch: ScratchDirectory
    let path: NetworkPathFeed

    /// WiFi only, whose endpoint is the origin itself.
    var wifi: PathInterface {
        PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "127.0.0.1:\(server.port)")
    }

    func makeManager(
        stallTimeout: Duration = .seconds(3), concurrent: Int = 2, cushion: Int64 = 1 << 20,
        termination: ProcessTermination = .clean, now: @escaping @Sendable () -> Date = { Date() },
        maximumAttempts: Int? = 5, renewalLead: Duration? = nil
    ) async throws -> DownloadManager {
        var configuration = EngineConfiguration(storageDirectory: scratch.path)
        configuration.transport = TransportConfiguration(connectTimeout: .seconds(2), stallTimeout: stallTimeout)
        configuration.retry = RetryBackoff.Configuration(
            base: .milliseconds(50), cap: .milliseconds(400), maximumAttempts: maximumAttempts)
        configuration.now = now
        configuration.maximumConcurrentDownloads = concurrent
        configuration.storageCushionBytes = cushion
        configuration.rentalRenewalLead = renewalLead
        let manager = try DownloadManager(configuration: configuration, path: path)
        await manager.start(after: termination)
        return manager
    }

    /// The catalog entry of `id`, read from the origin as an app would.
    func video(_ id: String) async throws -> CatalogVideo {
        let url = server.url("/videos/\(id)")
        let transport = HTTPTransport()
        let answer: HTTPAnswer
        do { answer = try await transport.fetch(url, via: nil) } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
        return CatalogVideo(document: try JSONDecoder().decode(VideoDocument.self, from: Data(answer.body)), catalogURL: url)
    }
}

func withEngine<T>(
    sizeScale: Double = 0.02, _ configure: (inout OriginConfiguration) -> Void = { _ in },
    _ body: (EngineFixture) async throws -> T
) async throws -> T {
    var configuration = OriginConfiguration(catalog: CatalogConfiguration(sizeScale: sizeScale, largeVideoDuration: 120), threads: 1)
    configure(&configuration)
    let server = try await OriginServer.start(configuration: configuration)
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let fixture = EngineFixture(server: server, scratch: scratch, path: NetworkPathFeed(NetworkPath(interfaces: [])))
    fixture.path.update(NetworkPath(interfaces: [fixture.wifi]))
    do {
        let result = try await body(fixture)
        try await server.stop()
        return result
    } catch {
        try? await server.stop()
        throw error
    }
}

extension DownloadManager {
    /// Polls until `token` is in a state `accepts`, for up to `seconds`.
    func wait(
        for token: DownloadToken, seconds: Double = 20, until accepts: (DownloadState) -> Bool
    ) async throws -> DownloadState? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let state = status(token)?.state, accepts(state) { return state }
            try await Task.sleep(for: .milliseconds(20))
        }
        return status(token)?.state
    }
}
