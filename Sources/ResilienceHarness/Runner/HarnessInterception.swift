import BenchCore

/// A run that judges an app fetching from its own origin (`bench --intercept HOST`):
/// each scenario's conditioner hands the connections whose first request names one of
/// `rules` (a CONNECT, or an absolute-form `http://` request) to an intercepting proxy
/// (`InterceptingProxy`), which answers with certificates minted from the run's CA
/// (`--https`) and forwards each request to the real host, its certificate checked
/// against the system's store and `upstreamCAFile`. Its exchanges join the scenario's
/// origin log (`OriginRequestRecord.host` set), so the properties judge them as the
/// fixture origin's. The recorded streams of those hosts (`--catalog`) are listed at
/// their recorded URLs and fetched live (`RecordedContent.liveFrom`); the recording stays
/// the judge's reference of their playlists and bytes.
public struct HarnessInterception: Sendable {
    /// The hosts intercepted.
    public var rules: [InterceptRule]
    /// PEM CAs trusted for those hosts beside the system's (`--upstream-ca`).
    public var upstreamCAFile: String?

    public init(rules: [InterceptRule], upstreamCAFile: String? = nil) {
        self.rules = rules
        self.upstreamCAFile = upstreamCAFile
    }

    /// The intercepting proxy's connections are numbered from here, apart from the origin's.
    static let firstConnectionID: UInt64 = 1_000_001
}
