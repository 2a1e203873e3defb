import Foundation
import HLSPlaylist
import OfflineDownloads
import Testing

/// Playlists and helpers the Package tests share: inline playlists shaped like the
/// fixture origin's, and a way to turn them into a `DownloadPlan`.
enum PackageFixtures {
    /// Where the inline master playlist is said to come from.
    static let masterURL = URL(string: "http://origin.test/videos/multilang/master.m3u8")!

    /// A master playlist shaped like the fixture origin's `multilang` video: variants
    /// 400k/1200k/3000k/6000k and an audio-only one, alternate audio en/fr/es,
    /// subtitles en/de, every URI relative.
    static let fixtureMaster = """
        #EXTM3U
        #EXT-X-VERSION:4
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio_en/index.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="fr",NAME="Français",AUTOSELECT=YES,CHANNELS="2",URI="audio_fr/index.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="es",NAME="Español",AUTOSELECT=YES,CHANNELS="2",URI="audio_es/index.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,URI="subs/en/index.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="de",NAME="Deutsch",AUTOSELECT=YES,URI="subs/de/index.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=400000,AVERAGE-BANDWIDTH=360000,RESOLUTION=416x234,CODECS="avc1.42c01e,mp4a.40.2",AUDIO="aud",SUBTITLES="subs"
        400k/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1200000,AVERAGE-BANDWIDTH=1080000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aud",SUBTITLES="subs"
        1200k/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=3000000,AVERAGE-BANDWIDTH=2700000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aud",SUBTITLES="subs"
        3000k/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=6000000,AVERAGE-BANDWIDTH=5400000,RESOLUTION=1920x1080,CODECS="avc1.640028,mp4a.40.2",AUDIO="aud",SUBTITLES="subs"
        6000k/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=64000,AVERAGE-BANDWIDTH=60000,CODECS="mp4a.40.2",AUDIO="aud"
        audio/index.m3u8

        """

    /// A one-variant master playlist (muxed audio, no renditions) naming `video/index.m3u8`.
    static let singleVariantMaster = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2"
        video/index.m3u8

        """

    /// The URL of the single variant's media playlist.
    static let singleVariantURL = URL(string: "http://origin.test/videos/multilang/video/index.m3u8")!

    /// A VOD media playlist of segments `seg<i>.<ext>` with `durations`; `header` and
    /// `perSegment(i)` add lines; `endList: false` makes it live.
    static func vod(
        _ durations: [Double], ext: String = "ts", header: String = "", endList: Bool = true,
        perSegment: (Int) -> String = { _ in "" }
    ) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(Int(durations.max() ?? 6))"]
        if !header.isEmpty { lines.append(header) }
        for (index, duration) in durations.enumerated() {
            let extra = perSegment(index)
            if !extra.isEmpty { lines.append(extra) }
            lines.append("#EXTINF:\(duration),")
            lines.append("seg\(index).\(ext)")
        }
        if endList { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The sources of `selection`, with a media playlist made by `media` for each.
    static func plan(
        master: MasterPlaylist, selection: MediaSelection, masterURL: URL = masterURL,
        media: (DownloadPlan.StreamSource) throws -> MediaPlaylist?
    ) throws -> DownloadPlan {
        var playlists: [URL: MediaPlaylist] = [:]
        for source in try DownloadPlan.sources(masterURL: masterURL, selection: selection) {
            playlists[source.playlistURL] = try media(source)
        }
        return try DownloadPlan(masterURL: masterURL, master: master, selection: selection, mediaPlaylists: playlists)
    }

    /// The fixture-shaped master with 1200k, audio `audio`, subtitles `subtitles`
    /// (none when empty), every stream 6 + 6 + 2 seconds.
    static func fixturePlan(audio: [String] = ["en", "fr"], subtitles: [String] = ["de"]) throws -> DownloadPlan {
        let master = try MasterPlaylist.parse(fixtureMaster)
        var selection = try VariantSelection.select(
            from: master, bitrate: 1_000_000, audioLanguages: audio, subtitleLanguages: subtitles)
        if subtitles.isEmpty { selection.subtitles = [] }  // select() would pick the default
        return try plan(master: master, selection: selection) { source in
            try MediaPlaylist.parse(vod([6, 6, 2], ext: source.kind == .subtitles ? "vtt" : "ts"))
        }
    }

    /// A plan of the single variant whose media playlist is `media`.
    static func singleVariantPlan(_ media: String) throws -> DownloadPlan {
        let master = try MasterPlaylist.parse(singleVariantMaster)
        return try DownloadPlan(
            masterURL: masterURL, master: master, selection: MediaSelection(variant: master.variants[0]),
            mediaPlaylists: [singleVariantURL: try MediaPlaylist.parse(media)])
    }

    /// The error `body` throws, if it is a `DownloadPlanError`.
    static func planError(_ body: () throws -> DownloadPlan) -> DownloadPlanError? {
        do {
            _ = try body()
            return nil
        } catch let error as DownloadPlanError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    /// Whether `path` is a plain relative path that stays in the package: no empty,
    /// `.` or `..` component, not absolute, only `[a-z0-9_.-]` characters.
    static func staysInside(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/") else { return false }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_.-")
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { component in
            !component.isEmpty && component != "." && component != ".." && component.allSatisfy(allowed.contains)
        }
    }

    /// A fresh directory under the temporary directory; the caller removes it.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("deadzone-package-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
