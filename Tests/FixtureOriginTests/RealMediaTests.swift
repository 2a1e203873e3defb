import BenchCore
import FixtureOrigin
import Foundation
import HLSPlaylist
import Testing

/// Real media: segments made by the real ffmpeg, served by the real origin, and read
/// back by ffmpeg and ffprobe as a player would.
@Suite(.serialized, .timeLimit(.minutes(5))) struct RealMediaTests {
    /// Two small video variants and an audio-only one, 9 s in 4 s segments (4, 4, 1),
    /// so ffmpeg makes every segment in well under a second.
    static let ladder = [
        VideoVariant(name: "200k", bandwidth: 200_000, averageBandwidth: 180_000,
                     resolution: Resolution(width: 160, height: 90), codecs: "avc1.42c01e,mp4a.40.2"),
        VideoVariant(name: "400k", bandwidth: 400_000, averageBandwidth: 360_000,
                     resolution: Resolution(width: 320, height: 180), codecs: "avc1.4d401e,mp4a.40.2"),
        VideoVariant(name: "audio", bandwidth: 64_000, averageBandwidth: 60_000, resolution: nil, codecs: "mp4a.40.2"),
    ]
    static let videos = [
        Video(id: "tiny", name: "Tiny", duration: 9, variants: ladder),
        Video(id: "tiny-key", name: "Tiny HTTP key", duration: 9, variants: ladder, protection: .httpKey),
    ]

    private func withRealOrigin<T>(_ body: (OriginServer, MediaTools, TemporaryDirectory) async throws -> T) async throws -> T {
        let tools = try MediaTools()
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        return try await withOrigin({ configuration in
            configuration.catalog = CatalogConfiguration(segmentDuration: 4)
            configuration.videos = Self.videos
            configuration.media = .real(RealMediaConfiguration(cacheDirectory: cache.path))
        }) { server in try await body(server, tools, cache) }
    }

    @Test func ffmpegDownloadsTheWholeVideoFromTheMasterPlaylist() async throws {
        try await withRealOrigin { server, tools, cache in
            for id in ["tiny", "tiny-key"] {
                let output = cache.path + "/\(id)-download.ts"
                let url = "http://127.0.0.1:\(server.port)/videos/\(id)/master.m3u8"
                let run = try await tools.run(tools.ffmpeg, ["-nostdin", "-v", "error", "-i", url, "-c", "copy", "-y", output])
                #expect(run.status == 0, "ffmpeg -i \(url) -c copy: \(run.errors)")
                #expect(run.errors.isEmpty, "ffmpeg complained while downloading \(id): \(run.errors)")
                let duration = try #require(try await tools.duration(of: output))
                #expect(abs(duration - 9) < 0.3, "ffprobe says \(id) lasts \(duration) s, not 9")
                let streams = try await tools.streams(of: output)
                #expect(streams.contains("h264,320,180"), "\(streams)")  // ffmpeg picks the best variant
                #expect(streams.contains("aac"), "\(streams)")
                #expect(try await tools.decodeErrors(of: output).isEmpty)
            }
            // It went through the origin, segment by segment, with no error answer
            // (ffmpeg asks for `Range: bytes=0-`, so the answers are 206).
            let log = server.requestLog
            let paths = log.map { "\($0.method) \($0.path) \($0.status)" }
            #expect(log.contains { $0.path == "/videos/tiny/400k/seg2.ts" && $0.status == 206 }, "\(paths)")
            #expect(log.contains { $0.path == "/videos/tiny-key/key" && $0.status == 206 }, "\(paths)")
            #expect(log.allSatisfy { $0.status < 400 }, "\(log.filter { $0.status >= 400 }.map(\.path))")
        }
    }

    @Test func eachStreamIsWhatItsVariantAnnounces() async throws {
        try await withRealOrigin { server, tools, cache in
            for (stream, expected) in [("200k", ["h264,160,90", "aac"]), ("audio", ["aac"])] {
                let store = server.store  // ffmpeg makes the segment: wait for it off the cooperative pool
                let resource = try #require(try await OffPool.run { try store.loadResource(at: .segment(videoID: "tiny", stream: stream, index: 1)) })
                let file = cache.path + "/probe-\(stream).ts"
                try Data(resource.bytes).write(to: URL(fileURLWithPath: file))
                let streams = try await tools.streams(of: file)
                #expect(streams == expected, "\(streams)")
                let duration = try #require(try await tools.duration(of: file))
                #expect(duration > 3.5 && duration < 4.5, "segment 1 of \(stream) lasts \(duration) s")
            }
        }
    }

    @Test func aSegmentIsMadeOnceAndThenReadFromTheCache() async throws {
        try await withRealOrigin { server, _, cache in
            let path = ContentPath.segment(videoID: "tiny", stream: "400k", index: 0)
            let store = server.store  // ffmpeg makes the segment: wait for it off the cooperative pool
            let first = try #require(try await OffPool.run { try store.loadResource(at: path) })
            let files = try FileManager.default.subpathsOfDirectory(atPath: cache.path).filter { $0.hasSuffix(".ts") }
            #expect(files.count == 1 && files[0].hasPrefix("tiny/400k/seg0-"), "\(files)")
            let file = cache.path + "/" + files[0]
            let made = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date
            let again = try #require(try await OffPool.run { try store.loadResource(at: path) })
            #expect(again.bytes == first.bytes)
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date == made)
            #expect(!(try FileManager.default.subpathsOfDirectory(atPath: cache.path).contains { $0.hasSuffix(".tmp") }))
        }
    }

    @Test func concurrentRequestsForAMissingSegmentAllGetTheSameBytes() async throws {
        try await withRealOrigin { server, _, cache in
            let path = "/videos/tiny-key/200k/seg1.ts"
            let port = server.port
            let bodies = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let client = try RawHTTPConnection(port: port)
                        try client.request("GET", path)
                        return try await client.readResponse()?.body
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(bodies.count == 4 && Set(bodies.compactMap { $0 }).count == 1)
            #expect(bodies.first??.count ?? 0 > 10_000)
            let made = try FileManager.default.subpathsOfDirectory(atPath: cache.path).filter { $0.contains("seg1-") }
            #expect(made.count == 1, "\(made)")
            #expect(try await waitForLog(server, count: 4).allSatisfy { $0.status == 200 })
        }
    }

    @Test func aMissingFFmpegIsReportedAtStartWithWhatToDo() async throws {
        var configuration = OriginConfiguration()
        configuration.media = .real(RealMediaConfiguration(cacheDirectory: NSTemporaryDirectory(), ffmpeg: "/nonexistent/ffmpeg"))
        await #expect(throws: ContentError.ffmpegNotFound("/nonexistent/ffmpeg")) {
            try await OriginServer.start(configuration: configuration)
        }
        #expect("\(ContentError.ffmpegNotFound("ffmpeg"))".contains("apt-get install ffmpeg"))
    }

    @Test func anUnusableCacheDirectoryIsReportedAtStart() async throws {
        let tools = try MediaTools()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/a-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect {
            try RealMediaEncoder(configuration: RealMediaConfiguration(cacheDirectory: file + "/media", ffmpeg: tools.ffmpeg))
        } throws: { error in
            guard case .cacheDirectoryUnusable(let path, _) = error as? ContentError else { return false }
            return path == file + "/media"
        }
    }

    @Test func aFailingEncodeIsA500ThatSaysWhy() async throws {
        let tools = try MediaTools()
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        // A preset libx264 does not know makes ffmpeg fail.
        try await withOrigin({ configuration in
            configuration.catalog = CatalogConfiguration(segmentDuration: 4)
            configuration.videos = Self.videos
            configuration.media = .real(
                RealMediaConfiguration(cacheDirectory: cache.path, ffmpeg: tools.ffmpeg, encoderPreset: "no-such-preset"))
        }) { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", "/videos/tiny/200k/seg0.ts")
            let response = try #require(try await client.readResponse())
            #expect(response.status == 500)
            #expect(String(decoding: response.body, as: UTF8.self).contains("ffmpeg failed to make tiny/200k/seg0.ts"))
            // The playlist does not need ffmpeg and is still served on the same connection.
            try client.request("GET", "/videos/tiny/200k/index.m3u8")
            #expect(try await client.readResponse()?.status == 200)
        }
    }
}
