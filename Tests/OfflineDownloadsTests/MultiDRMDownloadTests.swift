import FixtureOrigin
import Foundation
import HLSPlaylist
import OfflineDownloads
import Testing

/// The origin's multi-DRM video (FairPlay `skd://` listed with Widevine and PlayReady
/// keys, first in the 400k variant and last in the 1200k one) downloads through the real
/// origin and conditioner and is playable offline: license stored, every local segment
/// the bytes the origin served, named with the `skd://` key and the IV it was encrypted with.
@Suite(.timeLimit(.minutes(5))) struct MultiDRMDownloadTests {
    @Test(arguments: [(400_000, "400k", 0), (1_200_000, "1200k", 2)])
    func multiDRMVideoDownloadsAndPlaysOffline(bitrate: Int, stream: String, skdPosition: Int) async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let video = try await fixture.video("multi-drm")
            let token = try await manager.requestDownload(video: video, parameters: DownloadParameters(requestedBitrate: bitrate))
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let offline = try #require(await manager.offlineVideo(token))
            #expect(offline.playableOffline, "\(offline.unplayableReason ?? "")")
            #expect(await manager.licenseExpiration(token) != nil, "no license stored")
            #expect(await manager.sourceURL(for: video)?.isFileURL == true)
            #expect(fixture.server.requestLog.contains { $0.path.hasPrefix("/license") })

            let store = fixture.server.store
            let catalogVideo = try #require(store.catalog.video(withID: "multi-drm"))
            let origin = try #require(store.catalog.mediaPlaylist(for: catalogVideo, stream: stream))
            #expect(origin.segments[0].keys.firstIndex { $0.uri.hasPrefix("skd://") } == skdPosition)
            let package = offline.masterPlaylist.deletingLastPathComponent()
            let local = try MediaPlaylist.parse(String(contentsOf: package.appendingPathComponent("video.m3u8"), encoding: .utf8))
            #expect(local.segments.count == origin.segments.count)
            // The engine chose the skd:// key (the one its license answers) for every segment.
            let plan = try JSONDecoder().decode(
                DownloadPlan.self, from: Data(contentsOf: package.appendingPathComponent(DownloadPlan.packageFileName)))
            let skd = try #require(plan.skdKey, "the plan chose no skd:// key")
            #expect(skd.uri == store.catalog.keyURI(for: "multi-drm"))
            #expect(plan.segments(ofStream: "video").allSatisfy { $0.key?.source == .license(skd) })
            for (index, segment) in local.segments.enumerated() {
                // Every key of the origin, in its order: all three need no network.
                #expect(segment.keys == origin.segments[index].keys, "segment \(index)")
                let stored = try Data(contentsOf: package.appendingPathComponent(segment.uri))
                let served = try #require(try store.servedSegment(of: catalogVideo, stream: stream, index: index))
                #expect(Array(stored) == served, "segment \(index) differs from what the origin served")
            }
            await manager.shutdown()
        }
    }
}
