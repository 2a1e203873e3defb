import Foundation

/// Makes a download's plan from its media playlists, one at a time: every key, init
/// section and segment to fetch, each once (by its package path), keys and init sections
/// first; and each playlist's package copy.
///
/// A resource is stored at its origin path below the master's directory; a byte range of
/// one (`EXT-X-BYTERANGE`, a MAP's `BYTERANGE`) is a file of its own holding exactly its
/// bytes (`ByteRange.localPath`), which the package's playlist names with no byte range,
/// as Deadzone's engine stores them. Init sections are fetched like segments but are none
/// of the protocol's (no `segmentStored`, as Deadzone's agent).
struct PlanBuilder {
    /// The stream of keys, and of init sections.
    static let keyStream = "keys"
    static let initStream = "init"

    let master: URL
    private var sidecars: [Resource] = []
    private var segments: [Resource] = []
    private var selections: [String: Int] = [:]
    private var counts: [String: Int] = [:]
    private var locals: Set<String> = []

    init(master: URL) { self.master = master }

    var plan: Plan { Plan(resources: sidecars + segments, selections: selections) }

    /// Adds the media playlist at `url`, chosen as `selection`; returns its package path and copy.
    mutating func add(_ media: MediaPlaylist, at url: URL, selection: String) throws -> (local: String, text: String) {
        let local = try HLS.localPath(master: master, resource: url)
        var localURIs: [Int: String] = [:]
        selections[selection] = media.segments.count
        for (index, segment) in media.segments.enumerated() {
            for key in [segment.map?.key, segment.key] {
                guard let uri = key?["URI"], HLS.isFetchedKey(uri) else { continue }
                _ = try add(try HLS.resolve(uri, against: url), range: nil, stream: Self.keyStream)
            }
            if let map = segment.map {
                let stored = try add(try HLS.resolve(map.uri, against: url), range: map.byteRange, stream: Self.initStream)
                if map.byteRange != nil { localURIs[map.line] = HLS.relativeURI(from: local, to: stored) }
            }
            let stored = try add(try HLS.resolve(segment.uri, against: url), range: segment.byteRange, stream: selection, index: index)
            if segment.byteRange != nil { localURIs[segment.line] = HLS.relativeURI(from: local, to: stored) }
        }
        return (local, media.packageText(localURIs: localURIs))
    }

    /// Whether the package keeps a master's `EXT-X-SESSION-KEY` of `uri`: one that needs no
    /// file, or whose key a segment uses (so it is stored); an unused one is dropped.
    func keepsSessionKey(_ uri: String) -> Bool {
        guard HLS.isFetchedKey(uri) else { return true }
        guard let url = try? HLS.resolve(uri, against: master) else { return false }
        return sidecars.contains { $0.stream == Self.keyStream && $0.url == url }
    }

    /// Adds `range` of `url` (all of it when nil) unless the plan has its package path
    /// already; returns that path. A segment's `index` is its place in its playlist; a
    /// key's or init section's, its number in its stream.
    private mutating func add(_ url: URL, range: ByteRange?, stream: String, index: Int? = nil) throws -> String {
        let whole = try HLS.localPath(master: master, resource: url)
        let local = range.map { $0.localPath(of: whole) } ?? whole
        guard locals.insert(local).inserted else { return local }
        let number = index ?? counts[stream, default: 0]
        counts[stream] = number + 1
        let resource = Resource(url: url, path: url.path, local: local, stream: stream, index: number, byteRange: range)
        if index == nil { sidecars.append(resource) } else { segments.append(resource) }
        return local
    }
}
