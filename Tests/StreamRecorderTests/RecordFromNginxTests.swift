import BenchCore
import Crypto
import Foundation
@testable import StreamRecorder
import Testing
import TestSupport

extension RecordedStreams {
    /// `StreamRecorder` against a real third-party origin: the HLS shapes of
    /// `scripts/make-hls-trees` (made by ffmpeg and openssl), served by nginx over HTTPS with a
    /// certificate of its own CA. What is recorded must be what nginx serves, byte for byte.
    @Suite(.timeLimit(.minutes(5))) struct RecordFromNginxTests {
        /// A scratch directory with the trees, nginx serving them, and a catalog directory.
        struct Scratch {
            let root: String
            let origin: NginxOrigin
            var trees: String { root + "/trees" }
            var catalog: String { root + "/catalog" }

            /// With `long`, the trees include `long/` (`scripts/make-hls-trees --long`).
            static func start(long: Bool = false) async throws -> Scratch {
                let root = NSTemporaryDirectory() + "deadzone-record-\(UUID().uuidString)"
                try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
                let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().appendingPathComponent("scripts/make-hls-trees").path
                do {
                    let made = try await ChildProcess.run(
                        "bash", [script, root + "/trees"] + (long ? ["--long"] : []), timeout: .seconds(240))
                    try #require(made.status == 0, "scripts/make-hls-trees failed: \(made.stderr)")
                    return Scratch(root: root, origin: try await NginxOrigin.start(serving: root + "/trees"))
                } catch {
                    try? FileManager.default.removeItem(atPath: root)  // nothing of a scratch that did not start is left
                    throw error
                }
            }

            func stop() async {
                await origin.stop()
                try? FileManager.default.removeItem(atPath: root)
            }

            func recorder(ca: Bool = true) throws -> StreamRecorder {
                try StreamRecorder(directory: catalog, caFile: ca ? origin.caFile : nil, jobs: 3)
            }

            func manifest() throws -> RecordedCatalog { try #require(try RecordedCatalog.load(from: catalog)) }

            /// Every file of the tree `shape`, as URL paths (`/ts/v0/seg0.ts`).
            func served(_ shape: String) -> Set<String> {
                let base = trees + "/" + shape
                let files = FileManager.default.enumerator(atPath: base)?.compactMap { $0 as? String } ?? []
                return Set(files.filter { name in
                    var directory: ObjCBool = false
                    return FileManager.default.fileExists(atPath: base + "/" + name, isDirectory: &directory) && !directory.boolValue
                }.map { "/\(shape)/\($0)" })
            }

            /// The requests nginx logged since `start` (an index into its log).
            func requests(since start: Int) -> [String] { Array(origin.requests().dropFirst(start)) }

            /// Steady, fast, clean links (WiFi 8 Mbit/s down and 4 up at 5 ms; cellular,
            /// expensive, half that at 20 ms), written as `links.yaml`: its path.
            func cleanLinks() throws -> String {
                let path = root + "/links.yaml"
                try """
                    name: test-links
                    description: fast clean links
                    duration: 5m
                    interfaces:
                      wifi: {downlink: {rate: 8Mbit/s, delay: 5ms}, uplink: {rate: 4Mbit/s, delay: 5ms}}
                      cellular: {expensive: true, downlink: {rate: 4Mbit/s, delay: 20ms}, uplink: {rate: 2Mbit/s, delay: 20ms}}

                    """.write(toFile: path, atomically: true, encoding: .utf8)
                return path
            }

            /// A scenario `name` that downloads the recorded stream `video` whole over WiFi
            /// and inspects its package (it asserts integrity), written as `NAME.yaml`: its path.
            /// With `spare`, the download is a `request-spare` of `video` (a fixture `--video`
            /// may play on a recording).
            func wholeDownload(_ video: String, name: String, spare: Bool = false) throws -> String {
                let path = root + "/\(name).yaml"
                try """
                    name: \(name)
                    summary: The stream \(video) downloaded whole over WiFi; its package must hold it byte-exact.
                    asserts: [integrity]
                    needs: [inspect]
                    steps:
                      - up: wifi
                      - wait-for-path: [wifi]
                      - launch
                      - \(spare ? "request-spare: [\(video)]" : "request: \(video)")
                      - wait-settled: all
                      - inspect: all

                    """.write(toFile: path, atomically: true, encoding: .utf8)
                return path
            }
        }

        static func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

        @Test func everyShapeIsRecordedByteForByteWithItsKindAndType() async throws {
            let scratch = try await Scratch.start()
            do {
                let shapes = ["ts", "fmp4", "byterange", "aes", "audio-subs", "discontinuity", "fairplay"]
                let outcomes = try await scratch.recorder().record(shapes.map {
                    StreamRecorder.Request(id: $0, url: scratch.origin.url("/\($0)/master.m3u8"))
                })
                let manifest = try scratch.manifest()
                #expect(manifest.videos.map(\.id) == shapes)
                for shape in shapes {
                    // Every file of the tree was recorded (the tree holds only what its playlists name) ...
                    let recorded = manifest.resources.filter { $0.url.contains("/\(shape)/") }
                    let paths = Set(recorded.compactMap { URL(string: $0.url)?.path })
                    #expect(paths == scratch.served(shape), "\(shape)")
                    // ... and each is the bytes nginx serves: its file, its size, its hash.
                    for resource in recorded {
                        let path = try #require(URL(string: resource.url)?.path)
                        let original = try Data(contentsOf: URL(fileURLWithPath: scratch.trees + path))
                        let copy = try Data(contentsOf: URL(fileURLWithPath: scratch.catalog + "/" + resource.file))
                        #expect(copy == original, "\(resource.url)")
                        #expect(resource.size == Int64(original.count) && resource.sha256 == Self.sha256(original))
                    }
                }
                func resource(_ path: String) throws -> RecordedResource {
                    try #require(manifest.resource(for: scratch.origin.url(path).absoluteString), "\(path) not recorded")
                }
                #expect(try resource("/ts/master.m3u8").kind == .master)
                #expect(try resource("/ts/master.m3u8").contentType == "application/vnd.apple.mpegurl")
                #expect(try resource("/ts/iframe/index.m3u8").kind == .iframes)
                #expect(try resource("/ts/v1/seg3.ts").contentType == "video/mp2t")
                #expect(try resource("/fmp4/v0/init.mp4").kind == .initSection)
                #expect(try resource("/fmp4/v0/seg0.m4s").contentType == "video/mp4")
                #expect(try resource("/aes/v0/key1.bin").kind == .key)
                #expect(try resource("/audio-subs/v_0/index_vtt.m3u8").kind == .subtitles)
                #expect(try resource("/audio-subs/v_0/index2.vtt").contentType == "text/vtt")
                #expect(try resource("/audio-subs/v_fr/index.m3u8").kind == .media)
                // One file for all the byte ranges, fetched once.
                #expect(manifest.resources.filter { $0.url.hasSuffix("/byterange/v0/all.ts") }.count == 1)
                let byOutcome = Dictionary(uniqueKeysWithValues: outcomes.map { ($0.video.id, $0) })
                #expect(byOutcome["ts"]?.video.duration == 4 && byOutcome["aes"]?.video.duration == 6)
                #expect(byOutcome["aes"]?.video.protection == "aes-128" && byOutcome["ts"]?.video.protection == "clear")
                #expect(byOutcome["fairplay"]?.video.protection == "sample-aes")
                #expect(byOutcome["fairplay"]?.video.licenseKeys == ["skd://recorded-fairplay/key-1"])
                // Each resource was asked for once; nothing was asked for the skd:// key.
                let asked = scratch.requests(since: 0)
                #expect(asked.count == manifest.resources.count, "\(asked)")
                #expect(asked.allSatisfy { $0.hasPrefix("GET ") && $0.contains(" 200 ") })
            } catch {
                await scratch.stop()
                throw error
            }
            await scratch.stop()
        }

        @Test func aSecondRunFetchesNothingAndADamagedOrMissingFileIsFetchedAgain() async throws {
            let scratch = try await Scratch.start()
            do {
                let streams = ["ts", "aes"].map { (name: String) in StreamRecorder.Request(id: name, url: scratch.origin.url("/\(name)/master.m3u8")) }
                let first = try await scratch.recorder().record(streams)
                #expect(first.allSatisfy { $0.kept == 0 && $0.fetched == $0.resources })
                let afterFirst = scratch.origin.requests().count

                let second = try await scratch.recorder().record(streams)
                #expect(scratch.requests(since: afterFirst).isEmpty, "a second run asked nginx for something")
                #expect(second.map(\.fetched) == [0, 0] && second.map(\.kept) == first.map(\.resources))

                // A segment damaged (same size, one byte changed), a key deleted, a playlist cut short.
                let manifest = try scratch.manifest()
                func file(_ path: String) throws -> String {
                    scratch.catalog + "/" + (try #require(manifest.resource(for: scratch.origin.url(path).absoluteString))).file
                }
                var segment = try Data(contentsOf: URL(fileURLWithPath: try file("/ts/v0/seg2.ts")))
                segment[100] ^= 0xff
                try segment.write(to: URL(fileURLWithPath: try file("/ts/v0/seg2.ts")))
                try FileManager.default.removeItem(atPath: try file("/aes/v0/key1.bin"))
                let playlist = try Data(contentsOf: URL(fileURLWithPath: try file("/ts/v1/index.m3u8")))
                try playlist.prefix(20).write(to: URL(fileURLWithPath: try file("/ts/v1/index.m3u8")))
                let beforeThird = scratch.origin.requests().count

                let third = try await scratch.recorder().record(streams)
                let fetchedAgain = Set(scratch.requests(since: beforeThird).map { $0.split(separator: " ")[1] })
                #expect(fetchedAgain == ["/ts/v0/seg2.ts", "/aes/v0/key1.bin", "/ts/v1/index.m3u8"])
                #expect(third.map(\.fetched) == [2, 1])
                for path in ["/ts/v0/seg2.ts", "/aes/v0/key1.bin", "/ts/v1/index.m3u8"] {
                    let copy = try Data(contentsOf: URL(fileURLWithPath: try file(path)))
                    #expect(copy == (try Data(contentsOf: URL(fileURLWithPath: scratch.trees + path))), "\(path)")
                }
            } catch {
                await scratch.stop()
                throw error
            }
            await scratch.stop()
        }

        @Test func redirectsAreRecordedAndWhatCannotBeRecordedIsAClearErrorThatKeepsTheRest() async throws {
            let scratch = try await Scratch.start()
            do {
                // A redirected master: recorded under the URL named, with its redirect; its
                // relative references resolve against where it was redirected to.
                _ = try await scratch.recorder().record([
                    StreamRecorder.Request(id: "moved", url: scratch.origin.url("/moved/discontinuity/master.m3u8"))
                ])
                let moved = try #require(
                    try scratch.manifest().resource(for: scratch.origin.url("/moved/discontinuity/master.m3u8").absoluteString))
                #expect(moved.redirects == [RecordedRedirect(status: 301, location: scratch.origin.url("/discontinuity/master.m3u8").absoluteString)])
                #expect(try scratch.manifest().resource(for: scratch.origin.url("/discontinuity/v0/b1.ts").absoluteString) != nil)

                // A live playlist: refused, naming it and its last line; the recording before it is kept.
                await #expect {
                    _ = try await scratch.recorder().record([StreamRecorder.Request(id: "live", url: scratch.origin.url("/live/index.m3u8"))])
                } throws: { error in
                    let text = "\(error)"
                    return text.contains("/live/index.m3u8 is a live playlist") && text.contains("no #EXT-X-ENDLIST (its last line is 12)")
                }
                #expect(try scratch.manifest().videos.map(\.id) == ["moved"])

                // A segment the origin does not have: its status, and the playlist line naming it.
                try """
                    #EXTM3U
                    #EXT-X-TARGETDURATION:1
                    #EXTINF:1,
                    ../ts/v0/seg0.ts
                    #EXTINF:1,
                    /missing/seg1.ts
                    #EXT-X-ENDLIST

                    """.write(toFile: scratch.trees + "/gap.m3u8", atomically: true, encoding: .utf8)
                await #expect {
                    _ = try await scratch.recorder().record([StreamRecorder.Request(id: "gap", url: scratch.origin.url("/gap.m3u8"))])
                } throws: { error in
                    "\(error)".contains("/missing/seg1.ts answered 404 (named by \(scratch.origin.url("/gap.m3u8")) line 6)")
                }

                // An origin whose CA is not trusted: a clear error that says what to pass.
                await #expect {
                    _ = try await scratch.recorder(ca: false).record([
                        StreamRecorder.Request(id: "ts", url: scratch.origin.url("/ts/master.m3u8"))
                    ])
                } throws: { error in
                    "\(error)".contains("certificate is not trusted") && "\(error)".contains("--ca FILE")
                }
            } catch {
                await scratch.stop()
                throw error
            }
            await scratch.stop()
        }
    }

    /// `bench record` itself: its summary, its progress on standard error, its exit statuses.
    @Suite(.timeLimit(.minutes(5))) struct RecordCommandTests {
        static func bench() throws -> String {
            let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            let found = [directory, directory.deletingLastPathComponent()].map { $0.appendingPathComponent("bench").path }
                .first { FileManager.default.isExecutableFile(atPath: $0) }
            return try #require(found, "no bench executable near \(directory.path): run `swift build --build-tests`")
        }

        @Test func theCommandRecordsSaysWhatItDidAndExitsByCause() async throws {
            let scratch = try await RecordFromNginxTests.Scratch.start()
            do {
                let bench = try Self.bench()
                let recorded = try await ChildProcess.run(bench, [
                    "record", "pilot=\(scratch.origin.url("/aes/master.m3u8"))", scratch.origin.url("/fmp4/master.m3u8").absoluteString,
                    "--out", scratch.catalog, "--ca", scratch.origin.caFile,
                ], timeout: .seconds(120))
                #expect(recorded.status == 0, "\(recorded.stderr)")
                #expect(recorded.stdout.contains("pilot: 10 resources, "), "\(recorded.stdout)")
                #expect(recorded.stdout.contains("(10 fetched, 0 kept), 6.0 s, aes-128"), "\(recorded.stdout)")
                #expect(recorded.stdout.contains("fmp4: 7 resources, "), "\(recorded.stdout)")
                #expect(recorded.stdout.contains("catalog: \(scratch.catalog)/catalog.json"))
                #expect(recorded.stderr.contains("recording pilot: 10 of 10 resources known so far (10 fetched, 0 kept)"),
                    "\(recorded.stderr)")

                let live = try await ChildProcess.run(bench, [
                    "record", scratch.origin.url("/live/index.m3u8").absoluteString, "--out", scratch.catalog,
                    "--ca", scratch.origin.caFile,
                ], timeout: .seconds(120))
                #expect(live.status == 1 && live.stderr.contains("is a live playlist"), "\(live.stderr)")
                #expect(live.stderr.contains("What was recorded before it is kept in \(scratch.catalog)"))
                #expect(try scratch.manifest().videos.map(\.id) == ["pilot", "fmp4"], "a refused stream lost the others")

                for (arguments, says) in [
                    (["record", "--out", scratch.catalog], "Missing expected argument '<[ID=]URL> ...'"),
                    (["record", "ftp://x/master.m3u8", "--out", scratch.catalog], "is not an http or https URL"),
                    (["record", "a=https://x.example/a.m3u8", "--poster", "b=https://x.example/p.png", "--out", scratch.catalog],
                     "no stream is named b"),
                    (["record", "https://x.example/a.m3u8", "--ca", "/nonexistent.pem", "--out", scratch.catalog],
                     "--ca /nonexistent.pem: no readable file there"),
                ] {
                    let refused = try await ChildProcess.run(bench, arguments, timeout: .seconds(60))
                    #expect(refused.status == 2 && refused.stderr.contains(says), "\(arguments): \(refused.stderr)")
                }
            } catch {
                await scratch.stop()
                throw error
            }
            await scratch.stop()
        }

        /// A recorded stream judged like a fixture video: Deadzone's engine downloads it from
        /// the scenario's origin (`bench --catalog`), integrity compares its package with the
        /// recording's bytes, and a variant that claims segments it never fetched is caught.
        @Test func aScenarioOnARecordedStreamIsJudgedOnWhatTheOriginServed() async throws {
            let scratch = try await RecordFromNginxTests.Scratch.start()
            do {
                let bench = try Self.bench()
                // Every shape a recording holds: init sections, byte ranges, keys, renditions, a
                // discontinuity, an skd:// key answered by the fixture license server.
                let shapes = ["ts", "fmp4", "byterange", "aes", "audio-subs", "discontinuity", "fairplay"]
                _ = try await scratch.recorder().record(
                    shapes.map { (shape: String) in StreamRecorder.Request(id: shape, url: scratch.origin.url("/\(shape)/master.m3u8")) })
                let links = try scratch.cleanLinks()
                let files = try shapes.map { try scratch.wholeDownload($0, name: "recorded-\($0)") }
                let unknown = try await ChildProcess.run(bench, ["scenario", "check", files[0]], timeout: .seconds(60))
                #expect(unknown.status == 2 && unknown.stderr.contains("unknown video 'ts'"), "\(unknown.stderr)")
                let known = try await ChildProcess.run(
                    bench, ["scenario", "check", files[0], "--catalog", scratch.catalog], timeout: .seconds(60))
                #expect(known.status == 0, "\(known.stderr)")

                let run = ["--profile", links, "--catalog", scratch.catalog, "--scenario-file", files[0], "--time-limit", "120"]
                let others = files.dropFirst().flatMap { ["--scenario-file", $0] }
                let honest = try await ChildProcess.run(bench, run + others + ["--out", scratch.root + "/honest"], timeout: .seconds(200))
                #expect(honest.status == 0, "\(honest.stdout)\n\(honest.stderr)")
                // Each shape's integrity verdict: passed on segments it compared, none vacuously.
                let report = try JSONSerialization.jsonObject(
                    with: Data(contentsOf: URL(fileURLWithPath: scratch.root + "/honest/report.json"))) as? [String: Any]
                let scenarios = report?["scenarios"] as? [[String: Any]] ?? []
                func verdicts(of property: String) -> [String: String] {
                    Dictionary(uniqueKeysWithValues: scenarios.map { scenario in
                        let verdicts = scenario["verdicts"] as? [[String: Any]] ?? []
                        let verdict = verdicts.first { $0["property"] as? String == property }
                        return (scenario["name"] as? String ?? "", "\(verdict?["outcome"] ?? "") \(verdict?["summary"] ?? "")")
                    })
                }
                let integrity = verdicts(of: "integrity")
                for shape in shapes {
                    let verdict = integrity["recorded-\(shape)"] ?? "missing"
                    #expect(verdict.hasPrefix("passed") && verdict.contains("segments byte-identical to the origin's"), "\(shape): \(verdict)")
                }
                // The FairPlay stream's license, named by its catalog entry, judged as a fixture skd video's is.
                let license = verdicts(of: "license-before-background")["recorded-fairplay"] ?? "missing"
                #expect(license.hasPrefix("passed 1 protected download each held a license"), "\(license)")

                let lying = try await ChildProcess.run(
                    bench, run + ["--out", scratch.root + "/lying", "--misbehave", "claims-unstored-segments"], timeout: .seconds(200))
                #expect(lying.status == 1, "\(lying.stdout)")
                #expect(lying.stdout.contains("FAIL  integrity") && lying.stdout.contains("which the origin never sent it"),
                    "\(lying.stdout)")
            } catch {
                await scratch.stop()
                throw error
            }
            await scratch.stop()
        }
    }
}
