import Foundation
import HLSPlaylist

/// Everything one download fetches, in the order it fetches it, and where each file
/// goes in the package directory. A pure value: made from playlists the engine has
/// already fetched, it does no I/O.
///
/// The engine calls `sources(masterURL:selection:)` to learn which media playlists to
/// fetch, then `init(masterURL:master:selection:mediaPlaylists:)`, inserts
/// `segmentRecords(token:)` into the index, and fetches `items` in order. `Sendable`
/// and `Codable` (so the engine may keep it beside the package and need no network to
/// finish after a relaunch); any thread or actor may hold and read it.
///
/// **Order.** Segments of all streams are merged by start time (the sum of the
/// durations before them), ties broken by stream (video, then audio, then subtitles in
/// selection order): with equal segment durations that is video i, audio i, subtitles
/// i, so the progress of every stream of a media selection moves together. A key file
/// or init section comes just before the first segment that needs it.
///
/// **Local names** are generated, never taken from a URL: the stream directory
/// (`video`, `audio_<lang>`, `subs_<lang>`), then `seg<index, 5 digits>.<ext>` or
/// `init<n>.<ext>`, and `key.bin` (`key1.bin`, … for further keys) at the top. The
/// extension is the remote one when it is 1–5 ASCII letters or digits, else `ts`
/// (`vtt` for subtitles, `mp4` for init sections). Local playlists are at the top:
/// `master.m3u8` and `<stream>.m3u8`, so every local URI is a plain relative path.
///
/// **Keys.** A segment may list several keys, one per KEYFORMAT (a multi-DRM stream:
/// FairPlay, Widevine, PlayReady). The engine chooses one: the `skd://` key if any,
/// else the `identity` key; with neither it throws `DownloadPlanError.noSupportedKey`.
/// Of the chosen key: `skd://<asset>/<key>` keys (any METHOD, any KEYFORMAT) are kept as they are
/// and answered by the license (`skdKey`). `http(s)` keys in the `identity` KEYFORMAT —
/// AES-128 and SAMPLE-AES alike, SAMPLE-AES segments are stored still encrypted — are
/// fetched once into a key file that the local playlists name. `data:` keys are kept.
/// Anything else throws `DownloadPlanError.unsupportedKey`. The other keys are kept
/// in the local playlists when they need no network (`data:` or `skd:` URIs).
public struct DownloadPlan: Sendable, Hashable {
    /// The `SegmentRecord.stream` of key files.
    public static let keyStream = "keys"
    /// The plan's file in a package directory, kept so a relaunch needs no playlist.
    public static let packageFileName = "plan.json"
    /// The bits per second assumed for an audio rendition when no audio-only variant of
    /// its group gives a BANDWIDTH (EXT-X-MEDIA has none).
    public static let defaultAudioBandwidth = 128_000
    /// The bits per second assumed for a subtitle rendition.
    public static let defaultSubtitleBandwidth = 1_000

    /// The master playlist's URL.
    public let masterURL: URL
    /// The master playlist, as given.
    public let master: MasterPlaylist
    /// The chosen variant and renditions.
    public let selection: MediaSelection
    /// The streams, video first, then audio and subtitles in selection order.
    public let streams: [Stream]
    /// Every file to fetch, in download order: `items[i].ordinal == i`.
    public let items: [Item]
    /// The one `skd://` key of the chosen streams, whose license the download needs;
    /// nil when none is `skd://`-encrypted.
    public let skdKey: SKDKey?

    /// The media playlists the download of `selection` needs, video first, then each
    /// chosen audio rendition with a URI (one without is muxed in the variant), then
    /// each chosen subtitle rendition. Names are unique: a second rendition with the
    /// same language gets `_2`, and so on.
    public static func sources(masterURL: URL, selection: MediaSelection) throws(DownloadPlanError) -> [StreamSource] {
        var sources = [StreamSource(
            name: "video", kind: .video, rendition: nil,
            playlistURL: try fetchableURL(selection.variant.uri, against: masterURL, stream: "video"))]
        var used: Set<String> = ["video", keyStream]
        for (kind, prefix, renditions) in [(StreamKind.audio, "audio_", selection.audio), (.subtitles, "subs_", selection.subtitles)] {
            for rendition in renditions {
                guard let uri = rendition.uri else { continue }
                let name = uniqueName(prefix + languageTag(rendition.language), used: &used)
                sources.append(StreamSource(
                    name: name, kind: kind, rendition: rendition,
                    playlistURL: try fetchableURL(uri, against: masterURL, stream: name)))
            }
        }
        return sources
    }

    /// Plans the download of `selection` from the master playlist `master` loaded from
    /// `masterURL`. `mediaPlaylists` holds the parsed media playlist of every stream of
    /// `sources(masterURL:selection:)`, keyed by its `playlistURL`; relative URIs in
    /// it are resolved against that URL. Throws when a playlist is missing, live or
    /// empty, or names something that cannot be fetched or decrypted offline.
    public init(
        masterURL: URL, master: MasterPlaylist, selection: MediaSelection, mediaPlaylists: [URL: MediaPlaylist]
    ) throws(DownloadPlanError) {
        var builder = PlanBuilder()
        var streams: [Stream] = []
        var drafts: [(start: Double, order: Int, item: Item)] = []
        for (order, source) in try Self.sources(masterURL: masterURL, selection: selection).enumerated() {
            let url = source.playlistURL
            guard let playlist = mediaPlaylists[url] else { throw .missingMediaPlaylist(stream: source.name, url: url) }
            guard playlist.endList || playlist.playlistType == .vod else { throw .livePlaylist(stream: source.name, url: url) }
            guard !playlist.segments.isEmpty else { throw .emptyPlaylist(stream: source.name, url: url) }
            streams.append(Stream(
                source: source, playlist: playlist, localPlaylistPath: Self.localPlaylistPath(ofStream: source.name),
                bandwidth: Self.bandwidth(of: source, selection: selection, master: master),
                totalDuration: playlist.totalDuration))
            var start = 0.0
            for index in playlist.segments.indices {
                drafts.append((start, order, try builder.segment(index, of: playlist, source: source)))
                start += playlist.segments[index].duration
            }
        }
        if builder.skdKeys.count > 1 { throw .multipleLicenseKeys(uris: builder.skdKeys.map(\.uri)) }
        drafts.sort { ($0.start, $0.order, $0.item.index) < ($1.start, $1.order, $1.item.index) }
        self.masterURL = masterURL
        self.master = master
        self.selection = selection
        self.streams = streams
        self.items = builder.ordered(drafts.map(\.item))
        self.skdKey = builder.skdKeys.first
    }

    /// Assembles a plan from its parts, as decoding does; no check is made.
    init(
        masterURL: URL, master: MasterPlaylist, selection: MediaSelection, streams: [Stream], items: [Item],
        skdKey: SKDKey?
    ) {
        self.masterURL = masterURL
        self.master = master
        self.selection = selection
        self.streams = streams
        self.items = items
        self.skdKey = skdKey
    }

    /// The sum of the streams' `estimatedBytes`: BANDWIDTH × duration / 8 each, the size
    /// to expect before lengths are known. An upper bound more than a guess: a variant's
    /// BANDWIDTH is a peak and already counts the audio played with it.
    public var estimatedBytes: Int64 { streams.reduce(0) { $0 + $1.estimatedBytes } }

    /// The size to expect, file by file: the length known for it — its EXT-X-BYTERANGE
    /// length, else `knownLengths[remoteURL]` (e.g. the size of the same file already
    /// stored by a download) — else its stream's BANDWIDTH × its duration / 8. Init
    /// sections and key files of unknown length count 0 (they are small). With no
    /// byte range and nothing known it equals `estimatedBytes` up to rounding.
    public func estimatedBytes(knownLengths: [URL: Int64]) -> Int64 {
        let bandwidths = Dictionary(streams.map { ($0.name, $0.bandwidth) }, uniquingKeysWith: { first, _ in first })
        var exact: Int64 = 0
        var estimated = 0.0
        for item in items {
            if let range = item.byteRange {
                exact += Int64(range.length)
            } else if let known = knownLengths[item.remoteURL] {
                exact += known
            } else {
                estimated += Double(bandwidths[item.stream] ?? 0) * item.duration / 8
            }
        }
        return exact + Int64(estimated.rounded(.up))
    }

    /// The local media playlist of the stream `name` in a package: `<name>.m3u8`.
    public static func localPlaylistPath(ofStream name: String) -> String {
        name + ".m3u8"
    }

    /// The key files to fetch and store (HTTP AES-128 or SAMPLE-AES keys).
    public var keyFiles: [Item] { items.filter { $0.kind == .keyFile } }

    /// Whether an HTTP key must be fetched and stored as a file (`key.bin`).
    public var needsKeyFile: Bool { items.contains { $0.kind == .keyFile } }

    /// The stream called `name`, or nil.
    public func stream(named name: String) -> Stream? {
        streams.first { $0.name == name }
    }

    /// The media segments of the stream `name`, in playlist order.
    public func segments(ofStream name: String) -> [Item] {
        items.filter { $0.stream == name && $0.kind == .segment }.sorted { $0.index < $1.index }
    }

    /// The index rows of the download `token`, one per item, in plan order (`ordinal`),
    /// nothing stored yet. For `DownloadIndex.insertSegments(_:)`.
    public func segmentRecords(token: String) -> [SegmentRecord] {
        items.map { item in
            SegmentRecord(
                token: token, stream: item.stream, index: item.index, ordinal: item.ordinal,
                uri: item.remoteURL.absoluteString, localPath: item.localPath)
        }
    }

    // MARK: Helpers

    /// `uri` resolved against `base`, if it is an `http` or `https` URL.
    static func fetchableURL(_ uri: String, against base: URL, stream: String) throws(DownloadPlanError) -> URL {
        guard let url = resolve(uri, against: base), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil
        else { throw .unsupportedURL(stream: stream, uri: uri) }
        return url
    }

    /// A path-safe form of LANGUAGE: lowercase ASCII letters, digits and `-`, at most
    /// 24 characters; `und` when nothing is left.
    static func languageTag(_ language: String?) -> String {
        let safe = (language ?? "").lowercased().unicodeScalars.prefix(24).map { scalar -> Character in
            let isSafe = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
            return isSafe ? Character(scalar) : "-"
        }
        return safe.isEmpty ? "und" : String(safe)
    }

    /// `name`, or `name_2`, `name_3`, … if taken; records the result in `used`.
    static func uniqueName(_ name: String, used: inout Set<String>) -> String {
        var candidate = name
        var counter = 2
        while used.contains(candidate) {
            candidate = "\(name)_\(counter)"
            counter += 1
        }
        used.insert(candidate)
        return candidate
    }

    /// The bits per second of `source` for the estimate: the variant's BANDWIDTH; for
    /// audio the lowest BANDWIDTH of an audio-only variant of its group, else
    /// `defaultAudioBandwidth`; for subtitles `defaultSubtitleBandwidth`.
    static func bandwidth(of source: StreamSource, selection: MediaSelection, master: MasterPlaylist) -> Int {
        switch source.kind {
        case .video:
            return selection.variant.bandwidth
        case .audio:
            let group = source.rendition?.groupID
            let audioOnly = master.variants.filter { $0.audio == group && !VariantSelection.hasVideo($0) }
            return audioOnly.map(\.bandwidth).min() ?? defaultAudioBandwidth
        case .subtitles:
            return defaultSubtitleBandwidth
        }
    }
}
