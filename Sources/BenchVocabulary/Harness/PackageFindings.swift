/// What the harness found when it read an app's offline package itself, matched
/// against its own origin: the `found` of `HarnessEvent.packageRead`.
///
/// Made by `PackageMatcher` from `PackageReader`'s walk of the package and
/// `OriginCatalogView`'s renditions; recorded in the trace, then read by the
/// `integrity` and `offline-playback` properties. A plain value; Codable with the
/// field names as keys (docs/report-schema.md).
public struct PackageFindings: Sendable, Hashable, Codable {
    /// The package directory: the master playlist's directory.
    public var directory: String
    /// What is wrong with the package as a whole (no master playlist, one that does not
    /// parse, a session key that is not in the package); empty when nothing is.
    public var problems: [String]
    /// One per media playlist the master names (variants, renditions with a URI,
    /// I-frame playlists), in the master's order.
    public var playlists: [PlaylistFindings]

    /// Creates findings.
    public init(directory: String, problems: [String] = [], playlists: [PlaylistFindings] = []) {
        self.directory = directory
        self.problems = problems
        self.playlists = playlists
    }

    /// The local playlists that hold the origin rendition `rendition` (its media
    /// playlist's path), complete ones first.
    public func playlists(holding rendition: String) -> [PlaylistFindings] {
        let holding = playlists.filter { $0.rendition == rendition }
        return holding.filter(\.isComplete) + holding.filter { !$0.isComplete }
    }
}

/// One local media playlist of a package, matched to the origin rendition whose
/// content it holds.
public struct PlaylistFindings: Sendable, Hashable, Codable {
    /// The URI the master playlist names it by.
    public var uri: String
    /// What the master names it as: `variant`, `audio`, `video`, `subtitles`,
    /// `closed-captions` or `i-frames`.
    public var role: String
    /// The origin media playlist whose segments it holds (e.g.
    /// `/videos/clear/400k/index.m3u8`), found by content (a stored segment hashing like
    /// the origin's segment at the same place); nil when no rendition matched.
    public var rendition: String?
    /// The segments of that origin rendition (0 when none matched).
    public var expected: Int
    /// The segments the local playlist lists.
    public var listed: Int
    /// Listed segments whose file is in the package.
    public var present: Int
    /// Present segments byte-identical (SHA-256) to the origin's segment at the same place.
    public var matching: Int
    /// Origin segment paths the package does not hold: listed with no file (or one
    /// outside the package), or not listed at all.
    public var missing: [String]
    /// Origin segment paths whose stored file differs from what the origin serves.
    public var mismatching: [String]
    /// The keys the segments name (EXT-X-KEY), each distinct one once.
    public var keys: [SidecarFinding]
    /// The init sections the segments name (EXT-X-MAP), each distinct one once.
    public var initSections: [SidecarFinding]
    /// Anything else wrong: a file named outside the package or by a remote URI, a
    /// playlist that does not parse, more segments than the origin's rendition has.
    public var problems: [String]

    /// Creates findings for one local playlist.
    public init(
        uri: String, role: String, rendition: String? = nil, expected: Int = 0, listed: Int = 0, present: Int = 0,
        matching: Int = 0, missing: [String] = [], mismatching: [String] = [], keys: [SidecarFinding] = [],
        initSections: [SidecarFinding] = [], problems: [String] = []
    ) {
        self.uri = uri
        self.role = role
        self.rendition = rendition
        self.expected = expected
        self.listed = listed
        self.present = present
        self.matching = matching
        self.missing = missing
        self.mismatching = mismatching
        self.keys = keys
        self.initSections = initSections
        self.problems = problems
    }

    /// It holds an origin rendition whole: every segment listed, present and
    /// byte-identical in order, every key and init section as the origin serves it.
    public var isComplete: Bool {
        rendition != nil && problems.isEmpty && listed == expected && matching == expected && missing.isEmpty
            && mismatching.isEmpty && keys.allSatisfy(\.isSound) && initSections.allSatisfy(\.isSound)
    }

    /// One line for evidence, e.g. `video.m3u8 (/videos/clear/400k/index.m3u8): 20 of 21
    /// segments present, 19 byte-identical; missing /videos/clear/400k/seg20.ts`.
    public var summary: String {
        let text = rendition.map { "\(uri) (\($0)): \(present) of \(expected) segments present, \(matching) byte-identical" }
            ?? "\(uri) (matching no origin rendition): \(listed) segment\(listed == 1 ? "" : "s") listed, \(present) present"
        var details: [String] = []
        if !missing.isEmpty { details.append("missing " + Self.list(missing)) }
        if !mismatching.isEmpty { details.append("differing " + Self.list(mismatching)) }
        details += (keys + initSections).filter { !$0.isSound }.map(\.summary)
        details += problems
        return details.isEmpty ? text : text + "; " + details.joined(separator: "; ")
    }

    /// The first three of `paths`, then how many more.
    public static func list(_ paths: [String]) -> String {
        let shown = paths.prefix(3).joined(separator: ", ")
        return paths.count > 3 ? "\(shown) and \(paths.count - 3) more" : shown
    }
}

/// A key (EXT-X-KEY) or init section (EXT-X-MAP) a local playlist names, against what
/// the origin's playlist names at the same place.
public struct SidecarFinding: Sendable, Hashable, Codable {
    /// How it compares.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// A file in the package with the bytes the origin serves.
        case matches
        /// A key fetched by no one (`skd://` answered by the license, a `data:` key),
        /// the same as the origin's.
        case needsNoFile
        /// A file in the package, or a `data:` key, with other bytes; or another method,
        /// IV or URI than the origin's.
        case differs
        /// Named, but no such file in the package.
        case missing
        /// Named outside the package directory.
        case outside
        /// A remote URI (needs the network).
        case remote
        /// The origin's playlist names one here and the local playlist none.
        case absent
        /// The local playlist names one where the origin's names none.
        case unexpected
    }

    /// The URI the local playlist names (nil when it names none).
    public var uri: String?
    /// What the origin's playlist names there: an origin path, or an `skd:`/`data:` URI.
    public var origin: String?
    public var outcome: Outcome

    /// Creates a finding.
    public init(uri: String?, origin: String?, outcome: Outcome) {
        self.uri = uri
        self.origin = origin
        self.outcome = outcome
    }

    /// It is what the origin serves (or needs no file, like the origin's).
    public var isSound: Bool { outcome == .matches || outcome == .needsNoFile }

    /// One phrase for evidence.
    public var summary: String {
        "\(uri ?? "none") for \(origin ?? "none"): \(outcome.rawValue)"
    }
}

/// Why the harness read a package.
public enum PackageReadCause: String, Sendable, Hashable, Codable {
    /// The app reported the download `downloaded`; read as soon as it named the package.
    case downloaded
    /// The app answered an `inspect` naming the package.
    case inspected
}
