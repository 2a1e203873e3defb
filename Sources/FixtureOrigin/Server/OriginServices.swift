import BenchCore
import Crypto
import Synchronization

/// What every connection of one `OriginServer` shares: the content, the license server,
/// the fault rules, the segment cache and the request log.
///
/// `Sendable` because every mutable part sits behind its own `Mutex`, held only for a
/// dictionary or array operation (no I/O, no content generation under a lock).
final class OriginServices: Sendable {
    let configuration: OriginConfiguration
    let store: ContentStore
    let licenseServer: LicenseServer
    let clock: any TraceClock
    private let sink: (@Sendable (OriginRequestRecord) -> Void)?
    private let faults: Mutex<FaultRuleSet>
    private let log = Mutex<[OriginRequestRecord]>([])
    private let connections = Mutex<UInt64>(0)
    private let cache: Mutex<SegmentCache>

    init(
        configuration: OriginConfiguration, licenseServer: LicenseServer?,
        sink: (@Sendable (OriginRequestRecord) -> Void)?
    ) {
        let store = ContentStore(configuration: configuration.catalog)
        self.configuration = configuration
        self.store = store
        self.clock = configuration.clock
        self.sink = sink
        self.faults = Mutex(configuration.faultRules)
        self.cache = Mutex(
            SegmentCache(maximumEntries: configuration.segmentCacheEntries, maximumBytes: configuration.segmentCacheBytes))
        self.licenseServer =
            licenseServer ?? Self.catalogLicenseServer(store: store, secret: configuration.licenseSecret, clock: configuration.clock)
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

    /// The resource at `path`; segments come from the cache when they can.
    func resource(at path: String) -> ContentResource? {
        guard let parsed = ContentPath(path) else { return nil }
        guard case .segment = parsed else { return store.resource(at: parsed) }
        let key = parsed.path
        if let cached = cache.withLock({ $0[key] }) { return cached }
        guard let resource = store.resource(at: parsed) else { return nil }
        cache.withLock { $0[key] = resource }
        return resource
    }

    /// Appends to the log, then tells the sink (outside the lock).
    func record(_ record: OriginRequestRecord) {
        log.withLock { $0.append(record) }
        sink?(record)
    }

    var requestLog: [OriginRequestRecord] {
        log.withLock { $0 }
    }

    /// A license server whose keys are the catalog's: asset id → its key id → its content key.
    static func catalogLicenseServer(store: ContentStore, secret: [UInt8], clock: any TraceClock) -> LicenseServer {
        LicenseServer(secret: SymmetricKey(data: secret), clock: clock) { asset, keyID in
            guard let key = store.contentKey(for: asset), let expected = store.catalog.keyID(for: asset) else {
                return .unknownAsset
            }
            return keyID == expected ? .key(key) : .unknownKey
        }
    }
}
