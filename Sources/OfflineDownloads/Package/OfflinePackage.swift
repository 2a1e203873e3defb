import Foundation
import HLSPlaylist

/// The local playlists of a download: what makes its package directory playable with
/// no network.
///
/// A value over a `DownloadPlan` and, for a partial download, the segments already
/// stored. `render()` is pure; `write(to:)` (in `OfflinePackage+Writing.swift`) does
/// the file I/O. The engine makes one when a download completes (or to let a partial
/// one be played), on any thread; it owns nothing.
///
/// Layout: `master.m3u8` names only the chosen variant (`video.m3u8`) and the chosen
/// renditions (`audio_<lang>.m3u8`, `subs_<lang>.m3u8`); each media playlist names the
/// local segment files. A byte-range segment is a file of its own, so no
/// EXT-X-BYTERANGE is written; EXT-X-MAP names the local init section. EXT-X-KEY is
/// kept: the chosen key `skd://` as it is (the stored license answers it through the
/// app's key delegate), an HTTP key as the local key file, with the same IV and media
/// sequence, so segments whose IV is implicit still decrypt; the segment's other keys
/// (other KEYFORMATs) in their order when they need no network (`data:`, `skd:`).
/// EXT-X-PROGRAM-DATE-TIME, EXT-X-DATERANGE, EXT-X-DISCONTINUITY(-SEQUENCE) and
/// EXT-X-START are kept; unmodelled tags are not (they may name remote resources).
/// Every playlist is VOD with EXT-X-ENDLIST. Every URI is a relative path inside the
/// package with no `..`.
public struct OfflinePackage: Sendable, Hashable {
    /// One rendered playlist: its path in the package and its text.
    public struct RenderedFile: Sendable, Hashable {
        /// The path relative to the package directory, e.g. `master.m3u8`.
        public var relativePath: String
        /// The playlist, as written by HLSPlaylist's renderer.
        public var text: String
    }

    /// One subtitle rendition as a sideband track for `offlineVideo`.
    public struct SidebandSubtitle: Sendable, Hashable {
        /// The stream, e.g. `subs_de`.
        public var stream: String
        /// LANGUAGE of the rendition, as written; nil when it has none.
        public var language: String?
        /// NAME of the rendition.
        public var name: String
        /// DEFAULT=YES.
        public var isDefault: Bool
        /// FORCED=YES.
        public var isForced: Bool
        /// The local subtitle playlist, e.g. `subs_de.m3u8`.
        public var playlistPath: String
        /// The local WebVTT files, in order (only the stored prefix of a partial package).
        public var filePaths: [String]
    }

    /// The local master playlist's path in the package.
    public static let masterPlaylistPath = "master.m3u8"

    /// The plan the package is rendered from.
    public let plan: DownloadPlan
    /// The local paths that are stored, or nil to render every item of the plan.
    public let storedPaths: Set<String>?

    /// A package of `plan`. With `segments` (the download's index rows), each media
    /// playlist lists only the prefix of segments that is stored — a segment, its init
    /// section and its key file all `complete` — so a partial package plays to its
    /// first gap. Without, every item is taken as stored.
    public init(plan: DownloadPlan, segments: [SegmentRecord]? = nil) {
        self.plan = plan
        storedPaths = segments.map { Set($0.filter { $0.state == .complete }.map(\.localPath)) }
    }

    /// Whether every item of the plan has a row in `segments` (matched by local path)
    /// recorded `complete`. The caller decides `playableOffline` from this and the license.
    public func isComplete(segments: [SegmentRecord]) -> Bool {
        let complete = Set(segments.filter { $0.state == .complete }.map(\.localPath))
        return plan.items.allSatisfy { complete.contains($0.localPath) }
    }

    /// The local playlists: `master.m3u8` first, then one per stream in plan order.
    public func render() -> [RenderedFile] {
        [RenderedFile(relativePath: Self.masterPlaylistPath, text: localMaster().render())]
            + plan.streams.map { RenderedFile(relativePath: $0.localPlaylistPath, text: localPlaylist(of: $0).render()) }
    }

    /// The subtitle renditions, as sideband tracks.
    public var sidebandSubtitles: [SidebandSubtitle] {
        plan.streams.filter { $0.kind == .subtitles }.map { stream in
            SidebandSubtitle(
                stream: stream.name, language: stream.source.rendition?.language,
                name: stream.source.rendition?.name ?? stream.name, isDefault: stream.source.rendition?.isDefault ?? false,
                isForced: stream.source.rendition?.forced ?? false, playlistPath: stream.localPlaylistPath,
                filePaths: storedSegments(of: stream).map(\.localPath))
        }
    }

    /// The local master playlist: the chosen variant and renditions only, with local
    /// URIs. The variant names an AUDIO or SUBTITLES group only when a rendition of it
    /// was chosen, and no VIDEO group (alternate video is not downloaded). When no
    /// chosen audio rendition is DEFAULT=YES, the first becomes the default, so that a
    /// player picks a stored one. Session keys are kept when the plan uses the key. The
    /// variant's CLOSED-CAPTIONS renditions (carried in the stored video) are kept, as are
    /// EXT-X-START and the EXT-X-SESSION-DATA that holds its VALUE (not a remote URI).
    public func localMaster() -> MasterPlaylist {
        let localURIs = Dictionary(
            plan.streams.compactMap { s in s.source.rendition.map { ($0, s.localPlaylistPath) } },
            uniquingKeysWith: { first, _ in first })
        var audio = plan.selection.audio.map { rendition in
            var local = rendition
            local.uri = rendition.uri.flatMap { _ in localURIs[rendition] }
            return local
        }
        if !audio.isEmpty, !audio.contains(where: \.isDefault) { audio[0].isDefault = true }
        let subtitles = plan.selection.subtitles.compactMap { rendition -> Rendition? in
            guard let path = localURIs[rendition] else { return nil }
            var local = rendition
            local.uri = path
            return local
        }
        var variant = plan.selection.variant
        variant.uri = plan.streams[0].localPlaylistPath
        variant.audio = audio.isEmpty ? nil : variant.audio
        variant.subtitles = subtitles.isEmpty ? nil : variant.subtitles
        variant.video = nil
        var captions: [Rendition] = []
        if case .group(let group)? = variant.closedCaptions {
            captions = plan.master.renditions(ofType: .closedCaptions, inGroup: group)
            if captions.isEmpty { variant.closedCaptions = nil }
        }
        return MasterPlaylist(
            version: plan.master.version, independentSegments: plan.master.independentSegments,
            start: plan.master.start, sessionData: plan.master.sessionData.filter { $0.uri == nil },
            sessionKeys: plan.master.sessionKeys.compactMap(localSessionKey), renditions: audio + subtitles + captions,
            variants: [variant])
    }

    /// The local media playlist of `stream`: its stored segments with local URIs.
    public func localPlaylist(of stream: DownloadPlan.Stream) -> MediaPlaylist {
        let remote = stream.playlist
        let segments = storedSegments(of: stream).map { item in
            let original = remote.segments[item.index]
            return MediaSegment(
                duration: original.duration, title: original.title, uri: item.localPath, byteRange: nil,
                keys: Self.localKeys(original.keys, chosen: item.key),
                map: item.initSectionPath.map { MediaInitializationSection(uri: $0) },
                discontinuity: original.discontinuity, programDateTime: original.programDateTime,
                dateRanges: original.dateRanges)
        }
        return MediaPlaylist(
            version: remote.version, targetDuration: remote.targetDuration,
            mediaSequence: remote.mediaSequenceNumber(ofSegment: 0), discontinuitySequence: remote.discontinuitySequence,
            playlistType: .vod, independentSegments: remote.independentSegments, start: remote.start, endList: true,
            segments: segments, trailingDateRanges: storedPaths == nil ? remote.trailingDateRanges : [])
    }

    /// A segment's keys as the local playlist lists them: the chosen one as its local
    /// key, the others (other KEYFORMATs) kept in order when they need no network.
    static func localKeys(_ keys: [EncryptionKey], chosen: DownloadPlan.PlannedKey?) -> [EncryptionKey] {
        keys.compactMap { key in
            if key == chosen?.key { return chosen?.localKey }
            let scheme = key.uri.split(separator: ":", maxSplits: 1).first?.lowercased()
            return key.uri.contains(":") && (scheme == "data" || scheme == "skd") ? key : nil
        }
    }

    /// The segments of `stream` to list: all, or the stored prefix.
    func storedSegments(of stream: DownloadPlan.Stream) -> [DownloadPlan.Item] {
        let segments = plan.segments(ofStream: stream.name)
        guard let storedPaths else { return segments }
        let needed = { (item: DownloadPlan.Item) -> [String] in
            var paths = [item.localPath]
            if let path = item.initSectionPath { paths.append(path) }
            if case .file(_, let path)? = item.key?.source { paths.append(path) }
            return paths
        }
        return Array(segments.prefix { needed($0).allSatisfy(storedPaths.contains) })
    }

    /// A session key as the local master gives it: kept when a segment uses the same
    /// key (an `skd://` or `data:` URI as it is, an HTTP key as its key file), else dropped.
    private func localSessionKey(_ sessionKey: EncryptionKey) -> EncryptionKey? {
        let resolved = resolve(sessionKey.uri, against: plan.masterURL)
        for item in plan.items {
            guard let planned = item.key else { continue }
            switch planned.source {
            case .license, .inline:
                if planned.key.uri == sessionKey.uri { return sessionKey }
            case .file(let url, let path):
                guard url == resolved else { continue }
                var local = sessionKey
                local.uri = path
                return local
            }
        }
        return nil
    }
}
