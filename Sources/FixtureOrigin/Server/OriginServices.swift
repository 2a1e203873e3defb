import BenchCore
import BenchVocabulary
import Crypto
import NIOCore
import NIOSSL
import NIOPosix
import Synchronization

/// The answer to a content request: a resource, nothing there, or a failure to make it.
enum ContentLookup: Sendable {
    case found(ContentResource)
    /// A recorded redirect: answer `status` with `Location: location`.
    case redirect(status: Int, location: String)
    case notFound
    case failed(ContentError)
}

/// What every connection of one `OriginServer` shares: the content, the license server,
/// the fault rules, the segment cache and the request log.
///
/// `Sendable` because every mutable part sits behind its own `Mutex`, held only for a
/// dictionary or array operation (no I/O, no content generation under a lock).
/// Segments not yet cached are made on `generators`, never on an event loop, once per
/// path however many requests ask for it at the same time.
final class OriginServices: Sendable {
    let configuration: OriginConfiguration
    let store: ContentStore
    let licenseServer: LicenseServer
    let clock: any TraceClock
    /// The server side of TLS, when the origin serves HTTPS too (`OriginConfiguration.tls`).
    let tls: NIOSSLContext?
    private let sink: (@Sendable (OriginRequestRecord) -> Void)?
    private let faults: Mutex<FaultRuleSet>
    private let log = Mutex<[OriginRequestRecord]>([])
    /// Responses begun and not yet logged, by connection (one at a time on each).
    private let inProgress = Mutex<[UInt64: OriginRequestRecord]>([:])
    private let connections = Mutex<UInt64>(0)
    private let cache: Mutex<SegmentCache>
    private let generators: NIOThreadPool
    private let generating = Mutex<[String: EventLoopFuture<ContentLookup>]>([:])

    /// - Throws: `ContentError` when real media is asked for and ffmpeg or the cache
    ///   directory is unusable.
    init(
        configuration: OriginConfiguration, licenseServer: LicenseServer?,
        sink: (@Sendable (OriginRequestRecord) -> Void)?, tls: NIOSSLContext? = nil
    ) throws(ContentError) {
        self.tls = tls
        var encoder: RealMediaEncoder?
        if case .real(let media) = configuration.media { encoder = try RealMediaEncoder(configuration: media) }
        let catalog = configuration.videos.map { Catalog(configuration: configuration.catalog, videos: $0) }
            ?? Catalog(configuration: configuration.catalog)
        let store = ContentStore(catalog: catalog, encoder: encoder, recorded: configuration.recorded)
        self.configuration = configuration
        self.store = store
        self.clock = configuration.clock
        self.sink = sink
        self.faults = Mutex(configuration.faultRules)
        self.cache = Mutex(
            SegmentCache(maximumEntries: configuration.segmentCacheEntries, maximumBytes: configuration.segmentCacheBytes))
        self.licenseServer =
            licenseServer ?? Self.catalogLicenseServer(store: store, secret: configuration.licenseSecret, clock: configuration.clock)
        self.generators = NIOThreadPool(numberOfThreads: max(1, configuration.generatorThreads))
        generators.start()
    }

    /// Stops the generator threads; pending generations answer `failed`.
    func shutdown() async throws {
        try await generators.shutdownGracefully()
    }

    /// The next connection number, from 1.
    func nextConnectionID() -> UInt64 {
        connections.withLock { n in
            n += 1
            return n
        }
    }

    /// One fault decision per request.
    func decideFault(method: String, path: String) -> FaultDecision? {
        faults.withLock { $0.decide(method: method, path: path) }
    }

    var faultRules: FaultRuleSet {
        faults.withLock { $0 }
    }

    func setFaultRules(_ rules: FaultRuleSet) {
        faults.withLock { $0 = rules }
    }

    func updateFaultRules<T: Sendable>(_ change: (inout FaultRuleSet) throws(FaultRuleSetError) -> T) throws(FaultRuleSetError) -> T {
        try faults.withLock { (rules: inout FaultRuleSet) throws(FaultRuleSetError) -> T in
            var copy = rules
            let result = try change(&copy)
            rules = copy
            return result
        }
    }

    /// The resource at `path`, completed on `eventLoop`. A cached resource is answered
    /// at once; anything else but a segment or a hash manifest is made at once and cached;
    /// those two are made on a generator thread, shared by every request for the path that
    /// arrives meanwhile, and cached.
    func lookup(path: String, on eventLoop: any EventLoop) -> EventLoopFuture<ContentLookup> {
        switch store.recorded.entry(at: path) {
        case .redirect(let status, let location):
            return eventLoop.makeSucceededFuture(.redirect(status: status, location: location))
        case .file:
            return lookupRecorded(path: path, on: eventLoop)
        case nil:
            break
        }
        guard let parsed = ContentPath(path) else { return eventLoop.makeSucceededFuture(.notFound) }
        let key = parsed.path
        if let cached = cache.withLock({ $0[key] }) { return eventLoop.makeSucceededFuture(.found(cached)) }
        switch parsed {
        case .segment, .hashManifest: break  // slow to make: on a generator thread, below
        default:
            // Playlists, JSON, keys and images are small and quick to make: made here, kept.
            let answer = Self.load(parsed, from: store)
            if case .found(let resource) = answer { cache.withLock { $0[key] = resource } }
            return eventLoop.makeSucceededFuture(answer)
        }
        let (future, isNew) = generating.withLock { running in
            if let existing = running[key] { return (existing, false) }
            let future = generators.runIfActive(eventLoop: eventLoop) { [store] in Self.load(parsed, from: store) }
            running[key] = future
            return (future, true)
        }
        if isNew {
            // Registered outside the lock: the callback takes it.
            future.whenComplete { result in
                if case .success(.found(let resource)) = result { self.cache.withLock { $0[key] = resource } }
                _ = self.generating.withLock { $0.removeValue(forKey: key) }
            }
        }
        return future.hop(to: eventLoop).flatMapErrorThrowing { error in
            .failed(.encodingFailed(segment: key, status: -1, message: "origin is shutting down (\(error))"))
        }
    }

    /// A recorded file, read on a generator thread (it may be large) and kept like a segment.
    private func lookupRecorded(path: String, on eventLoop: any EventLoop) -> EventLoopFuture<ContentLookup> {
        let key = OriginPath.normalized(path)
        // A stream fetched live from its own origin is that origin's to answer.
        if store.recorded.isLive(path: key) { return eventLoop.makeSucceededFuture(.notFound) }
        if let cached = cache.withLock({ $0[key] }) { return eventLoop.makeSucceededFuture(.found(cached)) }
        let future = generators.runIfActive(eventLoop: eventLoop) { [store] () -> ContentLookup in
            do throws(ContentError) {
                return try store.loadResource(atPath: key).map(ContentLookup.found) ?? .notFound
            } catch {
                return .failed(error)
            }
        }
        future.whenSuccess { answer in
            if case .found(let resource) = answer { self.cache.withLock { $0[key] = resource } }
        }
        return future.hop(to: eventLoop).flatMapErrorThrowing { error -> ContentLookup in
            .failed(.encodingFailed(segment: key, status: -1, message: "origin is shutting down (\(error))"))
        }
    }

    private static func load(_ path: ContentPath, from store: ContentStore) -> ContentLookup {
        do {
            return try store.loadResource(at: path).map(ContentLookup.found) ?? .notFound
        } catch {
            return .failed(error)
        }
    }

    /// Appends to the log, then tells the sink (outside the lock). The connection's
    /// response leaves `responsesInProgress` only once it is in the log, so a reader
    /// of `responsesInProgress` then `requestLog` misses no response begun before.
    func record(_ record: OriginRequestRecord) {
        log.withLock { $0.append(record) }
        _ = inProgress.withLock { $0.removeValue(forKey: record.connectionID) }
        sink?(record)
    }

    var requestLog: [OriginRequestRecord] {
        log.withLock { $0 }
    }

    /// A response began on `record.connectionID`: listed until `record(_:)` logs it.
    func responseStarted(_ record: OriginRequestRecord) {
        inProgress.withLock { $0[record.connectionID] = record }
    }

    var responsesInProgress: [OriginRequestRecord] {
        inProgress.withLock { $0.values.sorted { $0.connectionID < $1.connectionID } }
    }

    /// A license server whose keys are the store's (`ContentStore.licenseLookup`): the
    /// catalog's, asset id → its key id → its content key, and the recorded streams'
    /// `skd://` keys.
    static func catalogLicenseServer(store: ContentStore, secret: [UInt8], clock: any TraceClock) -> LicenseServer {
        LicenseServer(secret: SymmetricKey(data: secret), clock: clock) { asset, keyID in
            store.licenseLookup(assetID: asset, keyID: keyID)
        }
    }
}
