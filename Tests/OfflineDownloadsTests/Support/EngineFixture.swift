import BenchCore
import FixtureOrigin
import Foundation
import LinkConditioner
import OfflineDownloads
import TestSupport
import Testing

/// A real origin behind the real (in-process) link conditioner, a scratch storage
/// directory and a `DownloadManager` over them: every request of the engine goes
/// through the conditioner's WiFi or cellular listener, and the origin's request log
/// names the interface each came through (PROXY protocol).
///
/// The listeners have loopback addresses of their own (127.0.0.12 and .13: the
/// conditioner's tests count sockets on .2 and .3). Both are up and unshaped unless a
/// test says otherwise; what the engine sees is `path`, which the test sets (as the
/// OS would), so a test can show the engine a path that is not the truth.
struct EngineFixture {
    let server: OriginServer
    let conditioner: LinkConditioner
    let scratch: ScratchDirectory
    let path: NetworkPathFeed
    /// What the conditioner reported, for a failing test's diagnosis.
    var conditionerEvents = EventCollector()

    /// The WiFi listener as a path interface.
    var wifi: PathInterface {
        PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: endpoint(.wifi))
    }

    /// The cellular listener as a path interface (expensive).
    var cellular: PathInterface {
        PathInterface(kind: .cellular, isExpensive: true, isConstrained: false, endpoint: endpoint(.cellular))
    }

    func endpoint(_ kind: InterfaceKind) -> String {
        conditioner.endpoints[kind]?.description ?? ""
    }

    /// Shows the engine `interfaces` as the path (the conditioner's own state is not changed).
    func showPath(_ interfaces: [InterfaceKind]) {
        path.update(NetworkPath(interfaces: interfaces.map { $0 == .wifi ? wifi : cellular }))
    }

    /// The interface an origin request came through, from its PROXY header.
    func interface(of record: OriginRequestRecord) -> InterfaceKind? {
        guard let name = record.interface else { return nil }
        return InterfaceKind.allCases.first { endpoint($0) == name }
    }

    /// The origin's requests that came through `kind`.
    func requests(through kind: InterfaceKind) -> [OriginRequestRecord] {
        server.requestLog.filter { interface(of: $0) == kind }
    }

    /// Body bytes the origin sent through `kind`.
    func bytesSent(through kind: InterfaceKind) -> Int {
        requests(through: kind).reduce(0) { $0 + $1.bytesSent }
    }

    func makeManager(
        stallTimeout: Duration = .seconds(3), concurrent: Int = 2, parallelFetches: Int = 2, cushion: Int64 = 1 << 20,
        termination: ProcessTermination = .clean, now: @escaping @Sendable () -> Date = { Date() },
        maximumAttempts: Int? = 5, renewalLead: Duration? = nil, licenseSecret: [UInt8]? = nil,
        progressBatching: ProgressBatcher.Configuration? = nil,
        freeSpace: (@Sendable (String) throws -> Int64)? = nil, path: (any NetworkPathProvider)? = nil
    ) async throws -> DownloadManager {
        var configuration = EngineConfiguration(storageDirectory: scratch.path)
        configuration.transport = TransportConfiguration(connectTimeout: .seconds(2), stallTimeout: stallTimeout)
        configuration.retry = RetryBackoff.Configuration(
            base: .milliseconds(50), cap: .milliseconds(400), maximumAttempts: maximumAttempts)
        configuration.now = now
        configuration.maximumConcurrentDownloads = concurrent
        configuration.parallelSegmentFetches = parallelFetches
        configuration.storageCushionBytes = cushion
        configuration.rentalRenewalLead = renewalLead
        if let licenseSecret { configuration.licenseSecret = licenseSecret }
        if let progressBatching { configuration.progressBatching = progressBatching }
        if let freeSpace { configuration.freeSpace = freeSpace }
        let manager = try DownloadManager(configuration: configuration, path: path ?? self.path)
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

    /// The origin's clock once everything the engine sent through the conditioner before
    /// this call has reached the origin: a request of the test's own through the WiFi
    /// listener, answered (by then the conditioner and the origin have each turned their
    /// loops many times over). A mark for `requests(startedAfter:)` that a request the
    /// engine sent earlier cannot pass, however late a loaded machine forwards it. The
    /// test's own request (`GET /videos`) starts before the mark.
    func markAfterTheEnginesRequests() async throws -> UInt64 {
        let transport = HTTPTransport()
        do { _ = try await transport.fetch(server.url("/videos"), via: wifi) } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
        return server.nowNanoseconds
    }

    /// The package directory of `token`.
    func package(_ token: DownloadToken) -> String {
        scratch.path + "/packages/\(token)"
    }
}

/// Runs `body` with an origin (configured by `configure`), a conditioner in front of
/// it (WiFi and cellular up, with `wifi` and `cellular` links, unshaped by default)
/// and a path showing WiFi only. Everything is stopped afterwards.
func withEngine<T>(
    sizeScale: Double = 0.02, wifi: InterfaceLink = InterfaceLink(),
    cellular: InterfaceLink = InterfaceLink(isExpensive: true),
    _ configure: (inout OriginConfiguration) -> Void = { _ in },
    _ body: (EngineFixture) async throws -> T
) async throws -> T {
    var configuration = OriginConfiguration(catalog: CatalogConfiguration(sizeScale: sizeScale, largeVideoDuration: 120), threads: 1)
    configure(&configuration)
    let server = try await OriginServer.start(configuration: configuration)
    let conditioner: LinkConditioner
    let events = EventCollector()
    do {
        let profile = Profile(
            name: "engine", seed: 3, duration: .seconds(600),
            initial: [.wifi: InterfaceSetup(state: .up, link: wifi), .cellular: InterfaceSetup(state: .up, link: cellular)])
        conditioner = try await LinkConditioner.start(
            configuration: ConditionerConfiguration(
                upstream: SocketAddress(host: "127.0.0.1", port: UInt16(server.port)),
                listeners: [.wifi: SocketAddress(host: "127.0.0.12", port: 0), .cellular: SocketAddress(host: "127.0.0.13", port: 0)],
                proxyProtocol: true, profile: profile, playTimeline: false),
            sink: events)
    } catch {
        try? await server.stop()
        throw error
    }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let fixture = EngineFixture(
        server: server, conditioner: conditioner, scratch: scratch, path: NetworkPathFeed(NetworkPath(interfaces: [])),
        conditionerEvents: events)
    fixture.showPath([.wifi])
    do {
        let result = try await body(fixture)
        await conditioner.stop()
        try await server.stop()
        return result
    } catch {
        await conditioner.stop()
        try? await server.stop()
        throw error
    }
}

extension DownloadManager {
    /// Polls until `token` is in a state `accepts`, for up to `seconds`. The bound is
    /// generous on purpose: at the start of a full `swift test` some 60 live tests share
    /// two CPUs, and a download of a second alone can take half a minute then.
    /// Returns the state it came to, or the state at the bound: the caller judges it.
    func wait(
        for token: DownloadToken, seconds: Double = 120, until accepts: (DownloadState) -> Bool
    ) async throws -> DownloadState? {
        await pollUntil(within: seconds, every: .milliseconds(20)) {
            guard let state = status(token)?.state else { return false }
            return accepts(state)
        }
        return status(token)?.state
    }

    /// Polls until `token`'s progress reaches `fraction`, for up to `seconds`; an issue
    /// when it does not.
    func wait(
        for token: DownloadToken, progress fraction: Double, seconds: Double = 120,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        var progress = 0.0
        await eventually(
            "download \(token) reaching \(fraction) of its progress (it is at \(progress))",
            within: seconds, sourceLocation: sourceLocation
        ) {
            progress = status(token)?.progress ?? 0
            return progress >= fraction
        }
    }
}
