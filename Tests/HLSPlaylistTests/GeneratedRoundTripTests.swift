import TestSupport
import Testing
@testable import HLSPlaylist

/// parse(render(p)) == p for seeded random playlist values: every modelled tag and
/// attribute survives the writer and the parser. A field the writer drops, or writes in
/// a form the parser reads differently, fails here with the seed and case to replay.
/// The time limit is for a hang, not for speed: `.cpuHeavy` runs each case at nice 10, and in
/// the first minutes of `swift test` on two cores, with hundreds of tests at nice 0, a case that
/// takes a second alone was starved past two minutes (the fresh clone of e2adee5).
@Suite(.timeLimit(.minutes(10)), .cpuHeavy)
struct GeneratedRoundTripTests {
    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func generatedMediaPlaylistsRoundTrip(seed: UInt64) throws {
        var generator = PlaylistGenerator(rng: SplitMix64(seed: seed))
        for index in 0..<300 {
            let media = generator.media()
            let text = media.render()
            let parsed = try #require(try? MediaPlaylist.parse(text), "seed \(seed) case \(index) does not parse:\n\(text)")
            #expect(parsed == media, "seed \(seed) case \(index):\n\(text)")
            #expect(parsed.render() == text, "seed \(seed) case \(index): rendering is not a fixed point")
            if parsed != media { return }
        }
    }

    @Test(arguments: [21, 22, 23, 24] as [UInt64])
    func generatedMasterPlaylistsRoundTrip(seed: UInt64) throws {
        var generator = PlaylistGenerator(rng: SplitMix64(seed: seed))
        for index in 0..<300 {
            let master = generator.master()
            let text = master.render()
            let parsed = try #require(try? MasterPlaylist.parse(text), "seed \(seed) case \(index) does not parse:\n\(text)")
            #expect(parsed == master, "seed \(seed) case \(index):\n\(text)")
            if parsed != master { return }
        }
    }

    /// The generator reaches what it is meant to: multi-key segments, date ranges,
    /// unknown tags, skips (else the property above would prove little).
    @Test func generatorCoversTheModel() {
        var generator = PlaylistGenerator(rng: SplitMix64(seed: 11))
        let playlists = (0..<300).map { _ in generator.media() }
        let segments = playlists.flatMap(\.segments)
        #expect(segments.contains { $0.keys.count >= 3 })
        #expect(segments.contains { !$0.dateRanges.isEmpty && !$0.unknownTags.isEmpty && $0.programDateTime != nil })
        #expect(playlists.contains { $0.skip != nil && $0.iFramesOnly && $0.start != nil && !$0.trailingTags.isEmpty })
    }
}
