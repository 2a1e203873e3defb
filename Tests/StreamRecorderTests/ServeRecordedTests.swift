import BenchCore
import FixtureOrigin
import Foundation
@testable import StreamRecorder
import Testing
import TestSupport

extension RecordedStreams {
    /// A recording served by the fixture origin: what nginx served, byte for byte, at the
    /// paths it was recorded from, with its ranges, redirects, catalog entries and hashes.
    @Suite(.timeLimit(.minutes(5))) struct ServeRecordedTests {
        @Test func theOriginServesARecordingByteForByteWithRangesRedirectsAndItsCatalog() async throws {
            let scratch = try await RecordFromNginxTests.Scratch.start()
            var origin: OriginServer?
            do {
                let shapes = ["ts", "fmp4", "byterange", "aes", "audio-subs", "fairplay"]
                _ = try await scratch.recorder().record(
                    shapes.map { StreamRecorder.Request(id: $0, url: scratch.origin.url("/\($0)/master.m3u8")) }
                        + [StreamRecorder.Request(id: "moved", url: scratch.origin.url("/moved/discontinuity/master.m3u8"))])
                var configuration = OriginConfiguration(catalog: CatalogConfiguration(sizeScale: 0.01), videos: [])
                configuration.recorded = try RecordedContent.load([scratch.catalog])
                origin = try await OriginServer.start(configuration: configuration)
                let base = "http://127.0.0.1:\(try #require(origin).port)"
                let manifest = try scratch.manifest()

                // Every recorded file, fetched from the origin at its recorded path by one curl.
                let files = manifest.resources.filter { $0.redirects.isEmpty }
                let out = scratch.root + "/served"
                try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
                var arguments = ["-sS", "--fail", "--noproxy", "*"]
                for (index, resource) in files.enumerated() {
                    arguments += [base + (try #require(URL(string: resource.url))).path, "-o", "\(out)/\(index)"]
                }
                let fetched = try await ChildProcess.run("curl", arguments, timeout: .seconds(120))
                try #require(fetched.status == 0, "curl: \(fetched.stderr)")
                for (index, resource) in files.enumerated() {
                    let path = try #require(URL(string: resource.url)).path
                    let served = try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(index)"))
                    #expect(served == (try Data(contentsOf: URL(fileURLWithPath: scratch.trees + path))), "\(path)")
                }

                // A range of the single-file stream, as a player asks for a segment of it.
                let whole = try Data(contentsOf: URL(fileURLWithPath: scratch.trees + "/byterange/v0/all.ts"))
                let ranged = try await ChildProcess.run(
                    "curl", ["-sS", "--noproxy", "*", "-r", "100-1099", "-o", out + "/range", "-w", "%{http_code}",
                             base + "/byterange/v0/all.ts"], timeout: .seconds(60))
                #expect(ranged.stdout == "206")
                #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/range")) == whole[100..<1100])

                // The redirect the recording met is answered again, to the path it pointed to.
                let moved = try await ChildProcess.run(
                    "curl", ["-sS", "--noproxy", "*", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}",
                             base + "/moved/discontinuity/master.m3u8"], timeout: .seconds(60))
                #expect(moved.stdout == "301 \(base)/discontinuity/master.m3u8", "\(moved.stdout)")

                // The catalog API lists the recorded streams (alone: no fixture video) ...
                let list = try await ChildProcess.run("curl", ["-sS", "--noproxy", "*", base + "/videos"], timeout: .seconds(60))
                let videos = try JSONDecoder().decode(VideoListDocument.self, from: Data(list.stdout.utf8)).videos
                #expect(videos.map(\.id) == shapes + ["moved"])
                #expect(videos.first { $0.id == "moved" }?.sources.first?.url == "/discontinuity/master.m3u8")
                #expect(videos.first { $0.id == "aes" }?.duration == 6)
                // ... the FairPlay one naming the license server and its skd:// key, which it answers.
                let fairplay = try #require(videos.first { $0.id == "fairplay" }?.sources.first?.keySystems?.first)
                #expect(fairplay.keyURI == "skd://recorded-fairplay/key-1" && fairplay.licenseURL == "/license", "\(fairplay)")
                for (key, expected) in [("key-1", "200"), ("key-2", "404")] {
                    let request = LicenseRequest(assetID: "recorded-fairplay", keyID: key, nonce: "n", terms: .purchase)
                    let answered = try await ChildProcess.run("curl", [
                        "-sS", "--noproxy", "*", "-X", "POST", "--data-binary", String(decoding: try JSONEncoder().encode(request), as: UTF8.self),
                        "-w", "\n%{http_code}", base + "/license",
                    ], timeout: .seconds(60))
                    #expect(answered.stdout.hasSuffix("\n" + expected), "\(key): \(answered.stdout)")
                    if expected == "404" { #expect(answered.stdout.contains("unknown_key"), "\(answered.stdout)") }
                }
                // ... each with a hash manifest of what it serves, from the recording.
                let hashes = try await ChildProcess.run(
                    "curl", ["-sS", "--noproxy", "*", base + "/videos/aes/manifest.json"], timeout: .seconds(60))
                let entries = try JSONDecoder().decode(HashManifest.self, from: Data(hashes.stdout.utf8)).entries
                let aes = manifest.resources.filter { $0.url.contains("/aes/") }
                #expect(Set(entries.keys) == Set(aes.compactMap { URL(string: $0.url)?.path }))
                #expect(aes.allSatisfy { entries[URL(string: $0.url)!.path]?.sha256 == $0.sha256 })

                // A recorded file changed after the recording (same size: the load does not
                // see it) is an error when asked for, never other bytes. A new origin: the
                // first one keeps what it served.
                let segment = try #require(manifest.resource(for: scratch.origin.url("/ts/v1/seg1.ts").absoluteString))
                try Data(repeating: 7, count: Int(segment.size)).write(to: URL(fileURLWithPath: scratch.catalog + "/" + segment.file))
                try? await origin?.stop()
                configuration.recorded = try RecordedContent.load([scratch.catalog])
                origin = try await OriginServer.start(configuration: configuration)
                let changed = try await ChildProcess.run(
                    "curl", ["-sS", "--noproxy", "*", "-w", "\n%{http_code}", "http://127.0.0.1:\(try #require(origin).port)/ts/v1/seg1.ts"],
                    timeout: .seconds(60))
                #expect(changed.stdout.hasSuffix("\n500") && changed.stdout.contains("changed since it was recorded"),
                    "\(changed.stdout)")
            } catch {
                try? await origin?.stop()
                await scratch.stop()
                throw error
            }
            try? await origin?.stop()
            await scratch.stop()
        }
    }
}
