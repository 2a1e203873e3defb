import Foundation

/// How a `Catalog` is built: the seed every synthetic byte derives from, the segment
/// duration, how big segments are, and how long the large video is.
///
/// A `Sendable` value with defaults for every field; the origin's command line fills it
/// and tests shrink `sizeScale` so segments stay a few kilobytes.
public struct CatalogConfiguration: Hashable, Sendable, Codable {
    /// Seed of every synthetic segment, content key and image: the same seed gives the
    /// same bytes on every run and machine. Default 1.
    public var seed: UInt64
    /// Target duration of one media segment, in seconds (the last one is shorter).
    /// Default 6.
    public var segmentDuration: Double
    /// Factor on segment sizes: a segment holds `bandwidth / 8 × duration × sizeScale`
    /// bytes (at least one 188-byte TS packet). 1 gives realistic sizes; tests use ~0.01.
    public var sizeScale: Double
    /// Duration of the `large` video, in seconds. Default 3600 (one hour).
    public var largeVideoDuration: Double
    /// The `Last-Modified` of every resource: fixed per catalog build so that
    /// validators stay stable across requests. Default 2026-01-01T00:00:00Z.
    public var lastModified: Date
    /// Path of the license server's certificate endpoint, advertised in the catalog
    /// JSON of `skd` videos. Default `/license/certificate`.
    public var certificatePath: String
    /// Path of the license server's license endpoint, advertised in the catalog JSON of
    /// `skd` videos. Default `/license`.
    public var licensePath: String

    /// Creates a configuration; every field has a default.
    public init(
        seed: UInt64 = 1, segmentDuration: Double = 6, sizeScale: Double = 1,
        largeVideoDuration: Double = 3600,
        lastModified: Date = Date(timeIntervalSince1970: 1_767_225_600),
        certificatePath: String = "/license/certificate", licensePath: String = "/license"
    ) {
        self.seed = seed
        self.segmentDuration = segmentDuration
        self.sizeScale = sizeScale
        self.largeVideoDuration = largeVideoDuration
        self.lastModified = lastModified
        self.certificatePath = certificatePath
        self.licensePath = licensePath
    }
}
