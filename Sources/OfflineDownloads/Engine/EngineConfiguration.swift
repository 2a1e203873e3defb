import BenchCore
import Foundation

/// How a `DownloadManager` works: where it keeps things, how much it runs at once, and
/// its timeouts, retry policy, storage cushion, clock and seed. Every field has a default.
public struct EngineConfiguration: Sendable {
    /// Directory of the index (`index.sqlite`) and of every package (`packages/{token}`).
    public var storageDirectory: String
    /// The HMAC secret licenses are verified with (shared with the license server).
    public var licenseSecret: [UInt8]
    /// Downloads that transfer at the same time; the others wait in `requested`. Default 2.
    public var maximumConcurrentDownloads: Int
    /// Segments one download fetches at the same time. Default 2.
    public var parallelSegmentFetches: Int
    /// Timeouts; `stallTimeout` is how long bytes may stop before a download suspends.
    public var transport: TransportConfiguration
    /// Retry delays and bounds.
    public var retry: RetryBackoff.Configuration
    /// Free space to leave on the disk: below it downloads suspend with `storage`. Default 64 MiB.
    public var storageCushionBytes: Int64
    /// Wall-clock time for records and license expiry (tests inject a fixed one).
    public var now: @Sendable () -> Date
    /// Monotonic nanoseconds for retry timers and events (shared with the trace).
    public var clock: any TraceClock
    /// Seed of the retry jitter.
    public var seed: UInt64
    /// Renew a rental's license automatically this long before it expires, while the
    /// app is in the foreground (the timers are dropped in the background and set
    /// again in the foreground). Nil (default): renewals only by `renewLicense`.
    public var rentalRenewalLead: Duration?
    /// How segment records are batched into index writes: a completed segment (its
    /// file already synced and renamed) and the bytes of partial ones are written
    /// together once `maximumPending` segments wait or the oldest waited
    /// `maximumDelayNanoseconds`. A crash loses no stored segment: a final file in
    /// place counts as stored at restore even when its record was still waiting.
    /// Default: 32 segments or one second.
    public var progressBatching: ProgressBatcher.Configuration
    /// Free bytes on the volume of a directory, checked against `storageCushionBytes`
    /// before each segment and while a storage suspension waits. Default: `statvfs`
    /// (`PackageFiles.freeSpace()`); tests inject a probe.
    public var freeSpace: @Sendable (_ directory: String) throws -> Int64
    /// FOR THE HARNESS'S MISBEHAVING AGENT ONLY (`bench agent --misbehave
    /// segments-before-license`), never for an app: when true, a transfer does not wait
    /// at the license gate; it starts the license exchange and fetches encrypted segments
    /// while the exchange runs alongside, which breaks "license before the first
    /// encrypted segment" on purpose so that the harness can show it catches it.
    /// Default false.
    public var transferSkipsLicenseGate = false
    /// FOR THE HARNESS'S MISBEHAVING AGENT ONLY (`bench agent --misbehave
    /// drops-init-sections`, `byte-range-from-zero`), never for an app: what the
    /// transfer breaks on purpose (`EngineSabotage`). Default: nothing.
    public var sabotage = EngineSabotage()

    /// Creates a configuration under `storageDirectory`.
    public init(
        storageDirectory: String, licenseSecret: [UInt8] = Array("deadzone-license-secret".utf8),
        maximumConcurrentDownloads: Int = 2, parallelSegmentFetches: Int = 2,
        transport: TransportConfiguration = TransportConfiguration(), retry: RetryBackoff.Configuration = .init(),
        storageCushionBytes: Int64 = 64 << 20, now: @escaping @Sendable () -> Date = { Date() },
        clock: any TraceClock = MonotonicClock(), seed: UInt64 = 1, rentalRenewalLead: Duration? = nil
    ) {
        self.rentalRenewalLead = rentalRenewalLead
        self.storageDirectory = storageDirectory
        self.licenseSecret = licenseSecret
        self.maximumConcurrentDownloads = maximumConcurrentDownloads
        self.parallelSegmentFetches = parallelSegmentFetches
        self.transport = transport
        self.retry = retry
        self.storageCushionBytes = storageCushionBytes
        self.now = now
        self.clock = clock
        self.seed = seed
        self.progressBatching = ProgressBatcher.Configuration()
        self.freeSpace = { directory in try PackageFiles(directory: directory).freeSpace() }
    }
}

/// What the app asks for with a download: license terms, quality, a name, and whether
/// cellular may be used.
public struct DownloadParameters: Sendable, Hashable, Codable {
    /// Purchase (default) or rental, with an optional play duration (dual expiry).
    public var licenseTerms: LicenseTerms
    /// Bits per second: the first variant at or above it, else the highest; nil picks
    /// the lowest variant with video.
    public var requestedBitrate: Int?
    /// Shown to the user; made safe for a file name.
    public var displayName: String?
    /// Whether this download may use cellular; nil takes the manager's setting at the
    /// time of the request (`DownloadManager.allowsCellular`).
    public var allowsCellular: Bool?
    /// When the download itself expires (a caching expiry, independent of the
    /// license): the engine then evicts it, files, license and record, and reports
    /// `EngineEvent.evicted`. Nil (default): never.
    public var expiresAt: Date?

    /// Creates parameters; everything has a default.
    public init(
        licenseTerms: LicenseTerms = .purchase, requestedBitrate: Int? = nil, displayName: String? = nil,
        allowsCellular: Bool? = nil, expiresAt: Date? = nil
    ) {
        self.expiresAt = expiresAt
        self.licenseTerms = licenseTerms
        self.requestedBitrate = requestedBitrate
        self.displayName = displayName
        self.allowsCellular = allowsCellular
    }

    /// `name` with everything but letters, digits, space, `-`, `_` and `.` replaced by
    /// `_`, without leading dots, at most 80 characters; `download` when nothing is left.
    public static func fileSafe(_ name: String) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: " -_."))
        var safe = String(String.UnicodeScalarView(name.unicodeScalars.map { allowed.contains($0) ? $0 : "_" }))
        while safe.hasPrefix(".") { safe.removeFirst() }
        safe = String(safe.prefix(80)).trimmingCharacters(in: .whitespaces)
        return safe.isEmpty ? "download" : safe
    }
}

/// Which renditions to download besides the video: languages of alternate audio and
/// subtitles; empty takes the playlist's defaults.
public struct MediaSelections: Sendable, Hashable, Codable {
    public var audioLanguages: [String]
    public var subtitleLanguages: [String]

    /// Creates selections; empty lists take the defaults.
    public init(audioLanguages: [String] = [], subtitleLanguages: [String] = []) {
        self.audioLanguages = audioLanguages
        self.subtitleLanguages = subtitleLanguages
    }
}

/// A video of the catalog as the app got it: its catalog document and the URL the
/// document was read from (relative URLs in it resolve against that).
public struct CatalogVideo: Sendable, Hashable {
    public var document: VideoDocument
    public var catalogURL: URL

    /// Creates a video.
    public init(document: VideoDocument, catalogURL: URL) {
        self.document = document
        self.catalogURL = catalogURL
    }

    /// `canBeDownloaded`: the catalog's `offline_enabled`.
    public var canBeDownloaded: Bool { document.offlineEnabled }

    /// The HLS master playlist URL.
    public var masterURL: URL? {
        let source = document.sources.first { $0.type == SourceDocument.hlsType } ?? document.sources.first
        return source.flatMap { URL(string: $0.url, relativeTo: catalogURL)?.absoluteURL }
    }

    /// The license endpoints of a FairPlay-style protected video, or nil.
    public var licenseEndpoints: LicenseEndpoints? {
        guard let system = document.sources.lazy.compactMap(\.keySystems).joined().first(where: { $0.licenseURL != nil }),
            let license = system.licenseURL.flatMap({ URL(string: $0, relativeTo: catalogURL)?.absoluteURL }),
            let certificate = system.certificateURL.flatMap({ URL(string: $0, relativeTo: catalogURL)?.absoluteURL })
        else { return nil }
        return LicenseEndpoints(certificate: certificate, license: license)
    }

    /// The `skd://asset/key-id` of a protected video, parsed.
    public var licenseKey: (assetID: String, keyID: String)? {
        guard let uri = document.sources.lazy.compactMap(\.keySystems).joined().compactMap(\.keyURI).first,
            uri.hasPrefix("skd://")
        else { return nil }
        let parts = uri.dropFirst(6).split(separator: "/")
        guard parts.count == 2 else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}
