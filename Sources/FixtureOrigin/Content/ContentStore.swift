import BenchCore
import Foundation
import HLSPlaylist

/// Answers content paths with resources: the catalog API, playlists, segments,
/// subtitles, HTTP keys, images and each video's hash manifest (DESIGN.md §3).
///
/// A `Sendable` value over a `Catalog`; the HTTP server holds one and calls
/// `loadResource(at:)` from any thread. Every answer is computed on demand from the
/// catalog, so it is the same bytes on every call and every run; only real-media
/// segments are kept, on disk, by their `RealMediaEncoder`.
public struct ContentStore: Hashable, Sendable {
    /// The catalog served.
    public let catalog: Catalog
    /// The maker of real-media segments; nil serves synthetic segments.
    public let encoder: RealMediaEncoder?
    /// Streams recorded by `bench record`, served beside the catalog's videos.
    public let recorded: RecordedContent

    /// A store over `catalog`, with real-media segments from `encoder` when given, and
    /// the `recorded` streams beside its videos.
    public init(catalog: Catalog, encoder: RealMediaEncoder? = nil, recorded: RecordedContent = RecordedContent()) {
        self.catalog = catalog
        self.encoder = encoder
        self.recorded = recorded
    }

    /// The resource at request path `path`: a recorded file, or what the fixture layout
    /// names (`loadResource(at:)`); nil when there is none (a recorded redirect is not a
    /// resource: see `RecordedContent.entry(at:)`).
    public func loadResource(atPath path: String) throws(ContentError) -> ContentResource? {
        if let recorded = try recorded.resource(at: path, lastModified: catalog.configuration.lastModified) {
            return recorded
        }
        guard let parsed = ContentPath(path) else { return nil }
        return try loadResource(at: parsed)
    }

    /// A store over the standard catalog built with `configuration`.
    public init(configuration: CatalogConfiguration = CatalogConfiguration(), encoder: RealMediaEncoder? = nil) {
        self.init(catalog: Catalog(configuration: configuration), encoder: encoder)
    }

    /// What segments are made of.
    public var media: ContentMedia {
        encoder.map { .real($0.configuration) } ?? .synthetic
    }

    /// The resource at the request target `path`, or nil (answer 404) when the path is
    /// outside the layout, names no existing video/stream/track/segment, asks for the key
    /// of a video that is not `.httpKey`, or is refused as a traversal attempt (`..`,
    /// `.`, `//`, `%`-encoding, backslash — see `ContentPath`). The query is ignored.
    ///
    /// Segments are generated on each call: at `sizeScale` 1 that is up to a few MB of
    /// generation, encryption and hashing, so a server may cache by path. With real media
    /// a segment may take seconds (ffmpeg) and may fail: this returns nil then; call
    /// `loadResource(at:)` to learn why. A hash manifest (`/videos/{id}/manifest.json`)
    /// makes every segment of that video, so it costs as much as the whole video.
    public func resource(at path: String) -> ContentResource? {
        guard let parsed = ContentPath(path) else { return nil }
        return resource(at: parsed)
    }

    /// The resource at a parsed path, or nil as for `resource(at:)`.
    public func resource(at path: ContentPath) -> ContentResource? {
        (try? loadResource(at: path)) ?? nil
    }

    /// The resource at a parsed path, nil when there is none (as for `resource(at:)`).
    /// Throws only for real media that ffmpeg could not make.
    public func loadResource(at path: ContentPath) throws(ContentError) -> ContentResource? {
        switch path {
        case .videoList:
            let list = VideoListDocument(catalog).videos
                + recorded.streams.map { recorded.document(of: $0, in: catalog.configuration) }
            return make(ContentResource.jsonType, json(VideoListDocument(videos: list)))
        case .video(let id):
            if let stream = recorded.stream(id) {
                return make(ContentResource.jsonType, json(recorded.document(of: stream, in: catalog.configuration)))
            }
            return video(id).map { make(ContentResource.jsonType, json(VideoDocument($0, in: catalog))) }
        case .masterPlaylist(let id):
            return video(id).map { make(ContentResource.playlistType, Array(catalog.masterPlaylist(for: $0).render().utf8)) }
        case .mediaPlaylist(let id, let stream):
            guard let video = video(id), let playlist = catalog.mediaPlaylist(for: video, stream: stream) else { return nil }
            return make(ContentResource.playlistType, Array(playlist.render().utf8))
        case .segment(let id, let stream, let index):
            guard let video = video(id), let bytes = try servedSegment(of: video, stream: stream, index: index)
            else { return nil }
            return make(ContentResource.transportStreamType, bytes)
        case .subtitlePlaylist(let id, let language):
            guard let video = video(id), let playlist = catalog.subtitlePlaylist(for: video, language: language)
            else { return nil }
            return make(ContentResource.playlistType, Array(playlist.render().utf8))
        case .subtitleSegment(let id, let language, let index):
            guard let video = video(id), let text = catalog.subtitleSegment(of: video, language: language, index: index)
            else { return nil }
            return make(ContentResource.webVTTType, Array(text.utf8))
        case .key(let id):
            guard let video = video(id), video.protection == .httpKey, let key = catalog.contentKey(for: id)
            else { return nil }
            return make(ContentResource.keyType, key)
        case .poster(let id):
            return video(id).map { make(ContentResource.pngType, catalog.poster(of: $0)) }
        case .thumbnail(let id):
            return video(id).map { make(ContentResource.pngType, catalog.thumbnail(of: $0)) }
        case .hashManifest(let id):
            if let stream = recorded.stream(id) { return make(ContentResource.jsonType, json(recorded.hashManifest(of: stream))) }
            guard video(id) != nil else { return nil }
            return make(ContentResource.jsonType, json(try hashManifest(videoIDs: [id])))
        }
    }

    /// The clear bytes of segment `index` of `stream`: synthetic (`Catalog.clearSegment`)
    /// or made by the encoder; nil when there is no such segment.
    public func clearSegment(of video: Video, stream: String, index: Int) throws(ContentError) -> [UInt8]? {
        guard let encoder else { return catalog.clearSegment(of: video, stream: stream, index: index) }
        guard
            let recipe = RealSegmentRecipe(
                catalog: catalog, video: video, stream: stream, index: index, configuration: encoder.configuration)
        else { return nil }
        return try encoder.segment(recipe)
    }

    /// The bytes served for a segment: the clear bytes, AES-128-CBC encrypted (PKCS7,
    /// IV `Catalog.segmentIV(index)`) when the video is protected.
    public func servedSegment(of video: Video, stream: String, index: Int) throws(ContentError) -> [UInt8]? {
        guard let clear = try clearSegment(of: video, stream: stream, index: index) else { return nil }
        guard let key = catalog.contentKey(for: video.id) else { return clear }
        return Catalog.encrypt(clear, key: key, iv: Catalog.segmentIV(index))
    }

    /// The content key of a protected video; see `Catalog.contentKey(for:)`.
    /// The license server calls this.
    public func contentKey(for videoID: String) -> [UInt8]? {
        catalog.contentKey(for: videoID)
    }

    /// What the license server answers for (`assetID`, `keyID`): a recorded stream's
    /// `skd://` key (`RecordedContent.licenseLookup`), else the fixture video `assetID`'s
    /// key when `keyID` is its key id; `.unknownKey` for an asset either knows with
    /// other keys, `.unknownAsset` for one neither knows.
    public func licenseLookup(assetID: String, keyID: String) -> LicenseKeyLookup {
        let recordedLookup = recorded.licenseLookup(assetID: assetID, keyID: keyID)
        if let recordedLookup, case .key = recordedLookup { return recordedLookup }
        guard let key = contentKey(for: assetID), let expected = catalog.keyID(for: assetID) else {
            return recordedLookup ?? .unknownAsset
        }
        return keyID == expected ? .key(key) : .unknownKey
    }

    /// Every path `resource(at:)` answers for `video`, in a stable order: its JSON,
    /// master playlist, each stream's playlist and segments, each subtitle track's
    /// playlist and segments, the key (`.httpKey` only), poster and thumbnail. The hash
    /// manifest, which describes these paths, is not among them.
    public func paths(of video: Video) -> [ContentPath] {
        let id = video.id
        let indices = 0..<catalog.segmentCount(of: video)
        var paths: [ContentPath] = [.video(id: id), .masterPlaylist(videoID: id)]
        for stream in video.streamNames {
            paths.append(.mediaPlaylist(videoID: id, stream: stream))
            paths += indices.map { .segment(videoID: id, stream: stream, index: $0) }
        }
        for track in video.textTracks {
            paths.append(.subtitlePlaylist(videoID: id, language: track.language))
            paths += indices.map { .subtitleSegment(videoID: id, language: track.language, index: $0) }
        }
        if video.protection == .httpKey { paths.append(.key(videoID: id)) }
        return paths + [.poster(videoID: id), .thumbnail(videoID: id)]
    }

    private func video(_ id: String) -> Video? {
        catalog.video(withID: id)
    }

    private func make(_ type: String, _ bytes: [UInt8]) -> ContentResource {
        ContentResource(contentType: type, bytes: bytes, lastModified: catalog.configuration.lastModified)
    }

    /// Sorted keys and unescaped slashes, so equal documents give equal bytes.
    private func json(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(value))
        } catch {
            preconditionFailure("catalog documents hold only strings, numbers and booleans: \(error)")
        }
    }
}
