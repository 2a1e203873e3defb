import HLSPlaylist
import OfflineDownloads
import Testing

@Suite("VariantSelection")
struct VariantSelectionTests {
    /// A typical ladder: an audio-only variant first (the lowest BANDWIDTH of all),
    /// then video at 400k/1200k/3000k/6000k, listed out of order, with alternate
    /// audio (en default, fr, de) and subtitles (en, es default, none for de).
    static let ladder = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio/en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",LANGUAGE="fr",NAME="Français",AUTOSELECT=YES,CHANNELS="2",URI="audio/fr.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",LANGUAGE="de",NAME="Deutsch",AUTOSELECT=YES,CHANNELS="2",URI="audio/de.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",AUTOSELECT=YES,URI="subs/en.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="es",NAME="Español",DEFAULT=YES,AUTOSELECT=YES,URI="subs/es.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.2",AUDIO="aac"
        audio-only.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1200000,CODECS="avc1.4d401f,mp4a.40.2",RESOLUTION=960x540,AUDIO="aac",SUBTITLES="subs"
        video/1200k.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS="avc1.42e01e,mp4a.40.2",RESOLUTION=480x270,AUDIO="aac",SUBTITLES="subs"
        video/400k.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=6000000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1920x1080,AUDIO="aac",SUBTITLES="subs"
        video/6000k.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=3000000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,AUDIO="aac",SUBTITLES="subs"
        video/3000k.m3u8

        """

    static func master(_ text: String = ladder) throws -> MasterPlaylist { try MasterPlaylist.parse(text) }

    @Test("no bitrate: the lowest variant with video, never the audio-only one")
    func lowestWithVideo() throws {
        #expect(try VariantSelection.variant(in: Self.master()).uri == "video/400k.m3u8")
    }

    @Test("a bitrate: the first video variant at or above it, else the highest", arguments: [
        (1, "video/400k.m3u8"),
        (400_000, "video/400k.m3u8"),  // exactly at a variant's BANDWIDTH
        (400_001, "video/1200k.m3u8"),
        (2_000_000, "video/3000k.m3u8"),
        (3_000_000, "video/3000k.m3u8"),
        (6_000_000, "video/6000k.m3u8"),
        (6_000_001, "video/6000k.m3u8"),  // above the ladder: the highest
        (50_000_000, "video/6000k.m3u8"),
    ])
    func bitrate(_ requested: Int, _ expected: String) throws {
        #expect(try VariantSelection.variant(in: Self.master(), bitrate: requested).uri == expected)
    }

    @Test("video is recognised by RESOLUTION or by a video codec in CODECS")
    func videoDetection() {
        #expect(VariantSelection.hasVideo(Variant(bandwidth: 1, resolution: Resolution(width: 640, height: 360), uri: "a")))
        #expect(VariantSelection.hasVideo(Variant(bandwidth: 1, codecs: "mp4a.40.2, hvc1.2.4.L123.B0", uri: "b")))
        #expect(VariantSelection.hasVideo(Variant(bandwidth: 1, codecs: "AVC1.640028", uri: "c")))
        #expect(VariantSelection.hasVideo(Variant(bandwidth: 1, codecs: "av01.0.08M.08", uri: "d")))
        #expect(!VariantSelection.hasVideo(Variant(bandwidth: 1, codecs: "mp4a.40.2,ec-3", uri: "e")))
        #expect(!VariantSelection.hasVideo(Variant(bandwidth: 1, uri: "f")))  // says nothing: not taken for video
    }

    @Test("a codec-only ladder (no RESOLUTION) still picks video; equal bandwidths keep playlist order")
    func codecOnlyLadder() throws {
        let master = try Self.master("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=100000,CODECS="mp4a.40.5"
            audio.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.4d401e,mp4a.40.2"
            first.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.4d401e,mp4a.40.2"
            second.m3u8
            """)
        #expect(try VariantSelection.variant(in: master).uri == "first.m3u8")
        #expect(try VariantSelection.variant(in: master, bitrate: 900_000).uri == "second.m3u8")
    }

    @Test("no variant with video: a typed error")
    func noVideo() throws {
        let audioOnly = try Self.master("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.2"
            low.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=128000
            high.m3u8
            """)
        #expect(throws: VariantSelectionError.noVideoVariant) { try VariantSelection.variant(in: audioOnly) }
        #expect(throws: VariantSelectionError.noVideoVariant) { try VariantSelection.variant(in: MasterPlaylist()) }
    }

    @Test("no languages asked: the DEFAULT=YES audio and subtitles")
    func defaults() throws {
        let selection = try VariantSelection.select(from: Self.master(), bitrate: 2_500_000)
        #expect(selection.variant.uri == "video/3000k.m3u8")
        #expect(selection.audio.map(\.language) == ["en"])
        #expect(selection.subtitles.map(\.language) == ["es"])
    }

    @Test("no DEFAULT=YES in a group: its first rendition")
    func firstWhenNoDefault() throws {
        let master = try Self.master("""
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",LANGUAGE="it",NAME="Italiano",URI="it.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",LANGUAGE="pt",NAME="Português",URI="pt.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=640x360,AUDIO="a"
            v.m3u8
            """)
        let selection = try VariantSelection.select(from: master)
        #expect(selection.audio.map(\.language) == ["it"])
        #expect(selection.subtitles.isEmpty)  // the variant has no SUBTITLES group
    }

    @Test("languages asked: one rendition each, in the order asked, ignoring case")
    func byLanguage() throws {
        let selection = try VariantSelection.select(
            from: Self.master(), audioLanguages: ["FR", "de", "fr"], subtitleLanguages: ["en"])
        #expect(selection.variant.uri == "video/400k.m3u8")
        #expect(selection.audio.map(\.uri) == ["audio/fr.m3u8", "audio/de.m3u8"])
        #expect(selection.subtitles.map(\.name) == ["English"])
    }

    @Test("a language the group lacks: a typed error that lists what exists")
    func missingLanguage() throws {
        let master = try Self.master()
        #expect(throws: VariantSelectionError.languageNotFound(type: .subtitles, language: "de", available: ["en", "es"])) {
            try VariantSelection.select(from: master, subtitleLanguages: ["de"])
        }
        #expect(throws: VariantSelectionError.languageNotFound(type: .audio, language: "en-US", available: ["en", "fr", "de"])) {
            try VariantSelection.select(from: master, audioLanguages: ["en-US"])
        }
        let error = VariantSelectionError.languageNotFound(type: .subtitles, language: "de", available: [])
        #expect(error.description == #"no SUBTITLES rendition has LANGUAGE "de"; available: none"#)
    }

    @Test("renditions come only from the variant's own groups")
    func groupsOfTheVariant() throws {
        let master = try Self.master("""
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="low",LANGUAGE="en",NAME="English stereo",DEFAULT=YES,URI="low-en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="high",LANGUAGE="en",NAME="English 5.1",DEFAULT=YES,URI="high-en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="high",LANGUAGE="ja",NAME="日本語",URI="high-ja.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=640x360,AUDIO="low"
            low.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080,AUDIO="high"
            high.m3u8
            """)
        #expect(try VariantSelection.select(from: master).audio.map(\.uri) == ["low-en.m3u8"])
        #expect(try VariantSelection.select(from: master, bitrate: 5_000_000, audioLanguages: ["ja"]).audio.map(\.uri)
            == ["high-ja.m3u8"])
        // Japanese exists, but not in the low variant's group.
        #expect(throws: VariantSelectionError.languageNotFound(type: .audio, language: "ja", available: ["en"])) {
            try VariantSelection.select(from: master, audioLanguages: ["ja"])
        }
    }
}
