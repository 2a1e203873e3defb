import BenchCore

/// How an `OriginServer` listens and what it serves.
///
/// A `Sendable` value with a default for every field; the origin's command line and the
/// harness fill it, tests shrink `catalog.sizeScale` and use port 0.
public struct OriginConfiguration: Sendable {
    /// Address to bind. Default `127.0.0.1`.
    public var host: String
    /// Port to bind; 0 lets the system choose (read `OriginServer.port`). Default 0.
    public var port: Int
    /// The catalog served.
    public var catalog: CatalogConfiguration
    /// The videos served; nil (default) serves `Catalog.standardVideos(catalog)`.
    public var videos: [Video]?
    /// Synthetic segments (default) or real media made by ffmpeg.
    public var media: ContentMedia
    /// Streams recorded by `bench record`, served beside `videos` (none by default).
    public var recorded = RecordedContent()
    /// The fault rules at start; change them live with `OriginServer.setFaultRules(_:)`.
    public var faultRules: FaultRuleSet
    /// Which interface a request came through, by the destination of its PROXY header:
    /// `"host:port"` of a conditioner listener → interface name (e.g. `"wifi"`).
    /// A destination not in the map is named by its `"host:port"` text.
    public var interfaces: [String: String]
    /// Refuse every request of a connection that did not start with a PROXY header: it
    /// came straight to the origin, around the link conditioner, so nothing can say which
    /// interface carried it. The request is logged (`OriginRequestRecord.rejection`) and
    /// its connection reset, with no answer. The harness sets it; default false.
    public var requiresProxyHeader: Bool = false
    /// Serve HTTPS too, on the same port, with a certificate this CA signed: a connection
    /// whose first byte (after any PROXY header) is a TLS handshake speaks TLS
    /// (`TLSSniffer`). nil (default): plain HTTP only.
    public var tls: RunCertificateAuthority?
    /// A connection that sends nothing for this long while no response is in progress
    /// is closed. Default 30 s.
    public var idleTimeout: Duration
    /// Longest a request may take to arrive, from its first byte to its end (head and
    /// body). A slower one — a client trickling header bytes, or one that sends a head
    /// and then goes silent — is answered 408 and the connection closed; the 408 is in the
    /// request log. The clock is paused while a response is being sent. Default 10 s.
    public var requestTimeout: Duration
    /// Largest request body accepted; a bigger one is answered 413 and the connection
    /// closed. Default 64 KiB.
    public var maximumRequestBodyBytes: Int
    /// Most resources kept by the content cache: segments (generating and encrypting
    /// them is slow) and the small resources (playlists, JSON, images). Default 256.
    public var segmentCacheEntries: Int
    /// Most bytes kept by the content cache. Default 64 MiB.
    public var segmentCacheBytes: Int
    /// Path of the renewal endpoint. Default `/license/renew`; the certificate and
    /// license paths are the ones `catalog` advertises.
    public var renewalPath: String
    /// Whether `POST /_control/background` (body `true` or `false`) is served. Default true.
    public var controlAPIEnabled: Bool
    /// The HMAC secret licenses are signed with (the engine verifies with it).
    public var licenseSecret: [UInt8]
    /// Event-loop threads. Default 2.
    public var threads: Int
    /// Threads that make segments not yet cached (synthetic generation and encryption,
    /// or ffmpeg), off the event loops. Default 2.
    public var generatorThreads: Int
    /// Stamps request records and license events (monotonic nanoseconds, shared with the trace).
    public var clock: any TraceClock

    /// Creates a configuration; every field has a default.
    public init(
        host: String = "127.0.0.1", port: Int = 0, catalog: CatalogConfiguration = CatalogConfiguration(),
        videos: [Video]? = nil, media: ContentMedia = .synthetic,
        faultRules: FaultRuleSet? = nil, interfaces: [String: String] = [:], idleTimeout: Duration = .seconds(30),
        requestTimeout: Duration = .seconds(10), maximumRequestBodyBytes: Int = 64 * 1024, segmentCacheEntries: Int = 256,
        segmentCacheBytes: Int = 64 * 1024 * 1024, renewalPath: String = "/license/renew",
        controlAPIEnabled: Bool = true, licenseSecret: [UInt8] = Array("deadzone-license-secret".utf8),
        threads: Int = 2, generatorThreads: Int = 2, clock: any TraceClock = MonotonicClock()
    ) {
        self.host = host
        self.port = port
        self.catalog = catalog
        self.videos = videos
        self.media = media
        // An empty rule set cannot fail validation.
        self.faultRules = faultRules ?? (try! FaultRuleSet())
        self.interfaces = interfaces
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.maximumRequestBodyBytes = maximumRequestBodyBytes
        self.segmentCacheEntries = segmentCacheEntries
        self.segmentCacheBytes = segmentCacheBytes
        self.renewalPath = renewalPath
        self.controlAPIEnabled = controlAPIEnabled
        self.licenseSecret = licenseSecret
        self.threads = threads
        self.generatorThreads = generatorThreads
        self.clock = clock
    }
}
