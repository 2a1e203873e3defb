@testable import FixtureOrigin
import HLSPlaylist
import Testing

/// The ffmpeg command lines of real-media segments, checked without running ffmpeg.
@Suite struct RealSegmentRecipeTests {
    let configuration = RealMediaConfiguration(cacheDirectory: "/unused")

    private func recipe(_ id: String, _ stream: String, _ index: Int, segmentDuration: Double = 6) -> RealSegmentRecipe? {
        let catalog = Catalog(configuration: CatalogConfiguration(segmentDuration: segmentDuration))
        guard let video = catalog.video(withID: id) else { return nil }
        return RealSegmentRecipe(catalog: catalog, video: video, stream: stream, index: index, configuration: configuration)
    }

    private func value(after option: String, in arguments: [String]) -> String? {
        arguments.firstIndex(of: option).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    }

    @Test func aMuxedVariantHasVideoAtItsResolutionAndAudio() throws {
        let args = try #require(recipe("clear", "1200k", 3)).arguments
        #expect(args.contains { $0.hasPrefix("testsrc2=size=640x360:rate=25:duration=6") })
        #expect(args.contains { $0.hasPrefix("sine=") })
        #expect(value(after: "-c:v", in: args) == "libx264")
        #expect(value(after: "-profile:v", in: args) == "main")  // avc1.4d401e
        #expect(value(after: "-level:v", in: args) == "3.0")
        #expect(value(after: "-c:a", in: args) == "aac")
        #expect(value(after: "-output_ts_offset", in: args) == "18")
        #expect(value(after: "-mpegts_flags", in: args) == "+initial_discontinuity")
        #expect(args.last == "mpegts")
    }

    @Test func theBitrateFollowsTheVariant() throws {
        let lowRecipe = try #require(recipe("clear", "400k", 0))
        let highRecipe = try #require(recipe("clear", "6000k", 0))
        let low = try #require(value(after: "-b:v", in: lowRecipe.arguments).flatMap(Int.init))
        let high = try #require(value(after: "-b:v", in: highRecipe.arguments).flatMap(Int.init))
        #expect(low < 400_000 && high < 6_000_000 && high > 10 * low)
    }

    @Test func audioOnlyStreamsHaveNoVideo() throws {
        let variant = try #require(recipe("clear", "audio", 0)).arguments
        #expect(!variant.contains { $0.hasPrefix("testsrc2") } && variant.contains("aac") && !variant.contains("libx264"))
        let track = try #require(recipe("multilang", "audio_fr", 1)).arguments
        #expect(!track.contains("libx264") && track.contains("aac"))
    }

    @Test func variantsOfAVideoWithAlternateAudioCarryNoAudio() throws {
        let args = try #require(recipe("multilang", "400k", 0)).arguments
        #expect(args.contains("libx264") && !args.contains("aac") && !args.contains { $0.hasPrefix("sine=") })
    }

    @Test func alternateLanguagesHaveDifferentTones() throws {
        let tones = try ["audio_en", "audio_fr", "audio_es"].map { stream in
            try #require(recipe("multilang", stream, 0)).arguments.first { $0.hasPrefix("sine=") }
        }
        #expect(Set(tones).count == 3)
    }

    @Test func theLastSegmentIsShortAndItsAudioEndsBeforeTheSegmentDoes() throws {
        // clear is 125 s: 20 segments of 6 s, then 5 s.
        let last = try #require(recipe("clear", "400k", 20)).arguments
        #expect(last.contains("testsrc2=size=416x234:rate=25:duration=5"))
        #expect(value(after: "-output_ts_offset", in: last) == "120")
        for duration in [6.0, 5, 4, 2.5, 1] {
            let samples = RealSegmentRecipe.audioSamples(duration: duration)
            #expect(samples % 1024 == 0)
            // Plus the encoder's priming frame it still fits, with less than two frames of gap.
            #expect(samples + 1024 <= Int(duration * 48_000) && samples + 3 * 1024 > Int(duration * 48_000))
        }
    }

    @Test func thereIsNoRecipeForWhatDoesNotExist() {
        #expect(recipe("clear", "9000k", 0) == nil)
        #expect(recipe("clear", "400k", 21) == nil)
        #expect(recipe("clear", "400k", -1) == nil)
    }

    @Test func theFileNameChangesWithAnythingThatShapesTheBytes() throws {
        let a = try #require(recipe("clear", "400k", 0))
        #expect(a.relativePath == "clear/400k/seg0-\(a.fingerprint).ts" && a.fingerprint.count == 16)
        #expect(try #require(recipe("clear", "400k", 0)).fingerprint == a.fingerprint)
        #expect(try #require(recipe("clear", "400k", 0, segmentDuration: 4)).fingerprint != a.fingerprint)
        #expect(try #require(recipe("clear", "1200k", 0)).fingerprint != a.fingerprint)
        #expect(try #require(recipe("clear", "400k", 1)).fingerprint != a.fingerprint)
    }

    @Test func profilesAndLevelsComeFromCodecs() {
        #expect(RealSegmentRecipe.h264ProfileAndLevel(codecs: "avc1.42c01e,mp4a.40.2") == ("baseline", "3.0"))
        #expect(RealSegmentRecipe.h264ProfileAndLevel(codecs: "avc1.640028") == ("high", "4.0"))
        #expect(RealSegmentRecipe.h264ProfileAndLevel(codecs: "avc1.64001f") == ("high", "3.1"))
        #expect(RealSegmentRecipe.h264ProfileAndLevel(codecs: "hvc1.1.6.L93.B0") == ("high", "4.0"))
    }

    @Test func decimalsAreWrittenPlainly() {
        #expect(RealSegmentRecipe.decimal(6) == "6")
        #expect(RealSegmentRecipe.decimal(2.5) == "2.5")
        #expect(RealSegmentRecipe.decimal(0.125) == "0.125")
        #expect(RealSegmentRecipe.decimal(3600) == "3600")
    }
}
