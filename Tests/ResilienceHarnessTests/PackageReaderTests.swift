import Foundation
@testable import ResilienceHarness
import Testing

/// The harness reads packages itself: `PackageReader` walks what a player would open,
/// `PackageMatcher` finds by content which origin rendition each local playlist holds
/// and how much of it is there byte for byte. Packages are written by hand into a
/// scratch directory from what a small fixture origin serves.
@Suite struct PackageReaderTests {
    @Test func aWholePackageIsMatchedToTheOriginsRenditionsByContentNotByName() async throws {
        let package = try ScratchPackage(video: "multilang")
        defer { package.remove() }
        // Names that say nothing of the origin's layout, in an order unlike the origin's.
        try package.store("1200k", as: "x.m3u8", in: "x")
        try package.store("audio_fr", as: "sound/y.m3u8", in: "y")
        try package.store("subs/de", as: "z.m3u8", in: "z")
        try package.writeMaster(variant: "x.m3u8", renditions: [("AUDIO", "sound/y.m3u8"), ("SUBTITLES", "z.m3u8")])
        let found = await package.read()
        #expect(found.problems.isEmpty)
        #expect(found.playlists.map(\.rendition) == [
            "/videos/multilang/1200k/index.m3u8", "/videos/multilang/audio_fr/index.m3u8",
            "/videos/multilang/subs/de/index.m3u8",
        ])
        #expect(found.playlists.map(\.role) == ["variant", "audio", "subtitles"])
        #expect(found.playlists.allSatisfy { $0.isComplete }, "\(found.playlists.map(\.summary))")
        let variant = try #require(found.playlists.first)
        #expect(variant.expected == 11 && variant.listed == 11 && variant.present == 11 && variant.matching == 11)
    }

    @Test func aMissingSegmentIsNamedByItsOriginPath() async throws {
        let package = try ScratchPackage(video: "clear")
        defer { package.remove() }
        let files = try package.store("400k", as: "v.m3u8", in: "v")
        try package.writeMaster(variant: "v.m3u8")
        try FileManager.default.removeItem(atPath: package.root + "/" + files[3])
        var found = try #require(await package.read().playlists.first)
        #expect(found.rendition == "/videos/clear/400k/index.m3u8")
        #expect(found.missing == ["/videos/clear/400k/seg3.ts"] && found.mismatching.isEmpty)
        #expect(found.present == 20 && found.matching == 20 && !found.isComplete)
        #expect(found.summary.contains("20 of 21 segments present, 20 byte-identical; missing /videos/clear/400k/seg3.ts"))

        // A playlist that stops one segment short holds the rendition only in part.
        try package.writePlaylist("v.m3u8", files: Array(files.dropLast()))
        try package.write(files[3], package.served("/videos/clear/400k/seg3.ts"))
        found = try #require(await package.read().playlists.first)
        #expect(found.listed == 20 && found.matching == 20 && found.missing == ["/videos/clear/400k/seg20.ts"])
        #expect(!found.isComplete)
    }

    @Test func aCorruptedSegmentIsNamedAndTheRenditionStillFoundByTheNextOne() async throws {
        let package = try ScratchPackage(video: "clear")
        defer { package.remove() }
        let files = try package.store("3000k", as: "v.m3u8", in: "v")
        try package.writeMaster(variant: "v.m3u8")
        var bytes = package.served("/videos/clear/3000k/seg0.ts")
        bytes[100] ^= 0xFF
        try package.write(files[0], bytes)
        let found = try #require(await package.read().playlists.first)
        #expect(found.rendition == "/videos/clear/3000k/index.m3u8")
        #expect(found.mismatching == ["/videos/clear/3000k/seg0.ts"] && found.missing.isEmpty)
        #expect(found.present == 21 && found.matching == 20 && !found.isComplete)
    }

    @Test func aFileNamedOutsideThePackageIsNotInIt() async throws {
        let package = try ScratchPackage(video: "clear")
        defer { package.remove() }
        var files = try package.store("400k", as: "v.m3u8", in: "v")
        // The right bytes, but outside the package: by `..`, and by a symlink that leads out.
        try package.write(package.outside + "/seg2.ts", package.served("/videos/clear/400k/seg2.ts"))
        try package.write(package.outside + "/seg4.ts", package.served("/videos/clear/400k/seg4.ts"))
        try FileManager.default.removeItem(atPath: package.root + "/" + files[4])
        try FileManager.default.createSymbolicLink(
            atPath: package.root + "/" + files[4], withDestinationPath: package.outside + "/seg4.ts")
        files[2] = "../elsewhere/seg2.ts"
        try package.writePlaylist("v.m3u8", files: files)
        try package.writeMaster(variant: "v.m3u8")
        let found = try #require(await package.read().playlists.first)
        #expect(found.rendition == "/videos/clear/400k/index.m3u8")
        #expect(found.missing == ["/videos/clear/400k/seg2.ts", "/videos/clear/400k/seg4.ts"])
        #expect(found.problems == ["../elsewhere/seg2.ts is outside the package", "v/part4.bin is outside the package"])
        #expect(!found.isComplete)

        // A master naming a playlist outside, or a remote one, holds nothing.
        try package.writeMaster(variant: "../elsewhere/v.m3u8", renditions: [("AUDIO", "http://cdn.example/a.m3u8")])
        let master = await package.read()
        #expect(master.playlists.map(\.problems) == [
            ["the master names ../elsewhere/v.m3u8, which is outside the package"],
            ["the master names http://cdn.example/a.m3u8, which is a http: URI, not a file in the package"],
        ])
        #expect(master.playlists.allSatisfy { !$0.isComplete && $0.rendition == nil })
    }

    @Test func anEncryptedVariantWithALocalKeyFileMatchesOnlyWithTheOriginsKey() async throws {
        let package = try ScratchPackage(video: "http-key")
        defer { package.remove() }
        let keyLine = "#EXT-X-KEY:METHOD=AES-128,URI=\"keys/k.bin\""
        try package.store("400k", as: "v.m3u8", in: "v", keyLine: keyLine)
        try package.writeMaster(variant: "v.m3u8")
        try package.write("keys/k.bin", package.served("/videos/http-key/key"))
        var found = try #require(await package.read().playlists.first)
        // Segments are stored as served (encrypted), so they hash like the origin's.
        #expect(found.rendition == "/videos/http-key/400k/index.m3u8" && found.matching == 11)
        #expect(found.keys == [SidecarFinding(uri: "keys/k.bin", origin: "/videos/http-key/key", outcome: .matches)])
        #expect(found.isComplete, "\(found.summary)")

        try package.write("keys/k.bin", Array(repeating: 7, count: 16))
        found = try #require(await package.read().playlists.first)
        #expect(found.keys.map(\.outcome) == [.differs] && !found.isComplete)
        try FileManager.default.removeItem(atPath: package.root + "/keys/k.bin")
        found = try #require(await package.read().playlists.first)
        #expect(found.keys.map(\.outcome) == [.missing] && !found.isComplete)
        #expect(found.summary.contains("keys/k.bin for /videos/http-key/key: missing"))

        // The right key with another IV would not decrypt the segments as served.
        try package.write("keys/k.bin", package.served("/videos/http-key/key"))
        try package.store("400k", as: "v.m3u8", in: "v", keyLine: keyLine + ",IV=0x0000000000000000000000000000002A")
        found = try #require(await package.read().playlists.first)
        #expect(found.keys.map(\.outcome).contains(.differs) && !found.isComplete)
    }

    @Test func anSkdKeyNeedsNoFileAndAMissingKeyIsCaught() async throws {
        let package = try ScratchPackage(video: "protected")
        defer { package.remove() }
        // The origin's key line without its IV: each segment's IV is then its sequence
        // number, which is what the origin's explicit IVs are.
        let origin = String(decoding: package.served("/videos/protected/400k/index.m3u8"), as: UTF8.self)
        let line = try #require(origin.split(separator: "\n").first { $0.hasPrefix("#EXT-X-KEY") })
        let skd = line.replacingOccurrences(of: #",IV=0x[0-9A-Fa-f]+"#, with: "", options: .regularExpression)
        try package.store("400k", as: "v.m3u8", in: "v", keyLine: skd)
        try package.writeMaster(variant: "v.m3u8")
        var found = try #require(await package.read().playlists.first)
        #expect(found.keys.map(\.outcome) == [.needsNoFile] && found.isComplete, "\(found.summary)")
        // The key dropped from the local playlist: the segments cannot be decrypted.
        try package.store("400k", as: "v.m3u8", in: "v")
        found = try #require(await package.read().playlists.first)
        #expect(found.keys.map(\.outcome) == [.absent] && !found.isComplete)
    }

    @Test func aPackageWithoutAMasterOrWithForeignSegmentsHoldsNothing() async throws {
        let package = try ScratchPackage(video: "clear")
        defer { package.remove() }
        #expect(await package.read().problems == ["no master playlist master.m3u8 in the package"])
        try package.write("master.m3u8", text: "not a playlist\n")
        #expect(await package.read().problems.first?.hasPrefix("the master playlist master.m3u8 does not parse") == true)
        // Segments of another video hash like none of this video's renditions.
        try package.write("v/0.ts", Array(repeating: 0x47, count: 376))
        try package.writePlaylist("v.m3u8", files: ["v/0.ts"])
        try package.writeMaster(variant: "v.m3u8")
        let found = try #require(await package.read().playlists.first)
        #expect(found.rendition == nil && !found.isComplete)
        #expect(found.problems == ["no stored segment hashes like the origin's at the same place in any rendition"])
    }

    /// A package a player can open: every group a variant names is defined by a rendition
    /// of the master, and every key and init section a playlist names resolves inside the
    /// package, whether or not the playlist is one the origin's renditions match (the
    /// subtitles here are matched, but their sidecars are judged all the same).
    @Test func everyGroupAndSidecarTheStoredPlaylistsNameMustResolve() async throws {
        let package = try ScratchPackage(video: "multilang")
        defer { package.remove() }
        try package.store("1200k", as: "x.m3u8", in: "x")
        try package.store("audio_fr", as: "y.m3u8", in: "y")
        try package.store("subs/de", as: "z.m3u8", in: "z")
        func master(audioGroup: String) -> String {
            """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="fr",URI="y.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="de",URI="z.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1200000,AUDIO="\(audioGroup)",SUBTITLES="subs"
            x.m3u8

            """
        }
        try package.write("master.m3u8", text: master(audioGroup: "aud"))
        var found = await package.read()
        #expect(found.problems.isEmpty, "\(found.problems)")
        #expect(found.playlists.allSatisfy { $0.isComplete }, "\(found.playlists.map(\.summary))")

        // The variant names an audio group the master no longer defines (the engine kept
        // the attribute and dropped the renditions): a player refuses the master.
        try package.write("master.m3u8", text: master(audioGroup: "aud-en"))
        found = await package.read()
        #expect(found.problems == ["the master playlist master.m3u8 names the AUDIO group \"aud-en\" (for x.m3u8), which "
            + "it defines no rendition of"])

        // An init section and a key the subtitles playlist names, not in the package.
        try package.write("master.m3u8", text: master(audioGroup: "aud"))
        try package.store("subs/de", as: "z.m3u8", in: "z", keyLine: "#EXT-X-MAP:URI=\"z/init.mp4\"\n"
            + "#EXT-X-KEY:METHOD=AES-128,URI=\"z/k.key\"")
        found = await package.read()
        let subtitles = try #require(found.playlists.first { $0.uri == "z.m3u8" })
        #expect(!subtitles.isComplete)
        #expect(subtitles.problems.contains("z.m3u8 names the init section z/init.mp4, which is not in the package"),
                "\(subtitles.problems)")
        #expect(subtitles.problems.contains("z.m3u8 names the key z/k.key, which is not in the package"), "\(subtitles.problems)")
    }
}
