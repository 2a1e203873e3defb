import Foundation
@testable import ResilienceHarness
import Testing

/// A package of the multi-DRM video: its local playlists list the `skd://` key with a
/// Widevine and a PlayReady key. The judge reads the key a FairPlay/AES-128 player
/// decrypts with (`OriginKey.playable`), in the origin's playlists and the package's alike.
@Suite struct PackageReaderMultiKeyTests {
    /// The origin's EXT-X-KEY lines of the first segment of `stream`, without their IVs
    /// (each segment's IV is then its sequence number, which is what the origin's are).
    static func keyLines(_ package: ScratchPackage, _ stream: String) throws -> [String] {
        let origin = String(decoding: package.served("/videos/multi-drm/\(stream)/index.m3u8"), as: UTF8.self)
        let lines = origin.split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex { $0.hasPrefix("#EXT-X-KEY") })
        return lines[first...].prefix { $0.hasPrefix("#EXT-X-KEY") }.map {
            $0.replacingOccurrences(of: #",IV=0x[0-9A-Fa-f]+"#, with: "", options: .regularExpression)
        }
    }

    @Test(arguments: ["400k", "1200k"])  // the skd:// key first, then last
    func everyKeyListedTheSkdOneJudged(stream: String) async throws {
        let package = try ScratchPackage(video: "multi-drm")
        defer { package.remove() }
        let keys = try Self.keyLines(package, stream)
        #expect(keys.count == 3)
        try package.store(stream, as: "v.m3u8", in: "v", keyLine: keys.joined(separator: "\n"))
        try package.writeMaster(variant: "v.m3u8")
        var found = try #require(await package.read().playlists.first)
        #expect(found.rendition == "/videos/multi-drm/\(stream)/index.m3u8")
        #expect(found.keys.map(\.outcome) == [.needsNoFile] && found.isComplete, "\(found.summary)")
        #expect(found.keys.first?.uri?.hasPrefix("skd://multi-drm/") == true)
        // Only the other systems' keys kept: a FairPlay player has no key for the segments.
        let others = keys.filter { !$0.contains("skd://") }
        try package.store(stream, as: "v.m3u8", in: "v", keyLine: others.joined(separator: "\n"))
        found = try #require(await package.read().playlists.first)
        #expect(found.keys.map(\.outcome) == [.absent] && !found.isComplete)
    }

    @Test func aForeignKeyThatNeedsTheNetworkIsAProblem() async throws {
        let package = try ScratchPackage(video: "multi-drm")
        defer { package.remove() }
        let keys = try Self.keyLines(package, "400k")
        let remote = #"#EXT-X-KEY:METHOD=AES-128,URI="https://drm.example/wv",KEYFORMAT="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed""#
        try package.store("400k", as: "v.m3u8", in: "v", keyLine: ([keys[0], remote]).joined(separator: "\n"))
        try package.writeMaster(variant: "v.m3u8")
        let found = try #require(await package.read().playlists.first)
        #expect(found.problems.contains { $0.contains("https://drm.example/wv") }, "\(found.problems)")
    }
}
