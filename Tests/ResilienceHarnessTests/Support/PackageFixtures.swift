import ResilienceHarness

/// Package reads for property tests: the clear video's 400k rendition, three segments.
enum PackageFixtures {
    static let rendition = "/videos/clear/400k/index.m3u8"
    static let segments = (0..<3).map { "/videos/clear/400k/seg\($0).ts" }
    static let manifest = Dictionary(uniqueKeysWithValues: segments.enumerated().map { ($1, "hash\($0)") })
    /// A context that knows the rendition (and `more` renditions) and the manifest.
    static func context(more: [String: [String]] = [:]) -> PropertyContext {
        PropertyContext(
            hashManifest: manifest, renditions: OriginRenditions(more.merging([rendition: segments]) { first, _ in first }))
    }

    /// The local playlist holding `rendition`, whole but for `missing` and `mismatching`.
    static func playlist(
        _ rendition: String = rendition, segments: [String] = segments, missing: [String] = [], mismatching: [String] = []
    ) -> PlaylistFindings {
        let present = segments.count - missing.count
        return PlaylistFindings(
            uri: "video.m3u8", role: "variant", rendition: rendition, expected: segments.count, listed: segments.count,
            present: present, matching: present - mismatching.count, missing: missing, mismatching: mismatching)
    }

    /// A package holding `playlists` (the whole rendition when none given).
    static func package(_ playlists: [PlaylistFindings] = [playlist()]) -> PackageFindings {
        PackageFindings(directory: "/p", playlists: playlists)
    }

    /// d1 (video clear) requested at 0 and downloading at 1; the origin sends segment i
    /// at 2 + i and the app says it stored it 0.1 s later; downloaded at 5.
    static func downloaded() -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        for (index, path) in segments.enumerated() {
            b.origin(path, bytes: 100, at: 2 + Double(index))
            b.stored("d1", path: path, bytes: 100, index: index, at: 2.1 + Double(index))
        }
        b.state("d1", .downloaded, at: 5)
        return b
    }
}
