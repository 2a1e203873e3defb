import BenchCore
import Crypto
import FixtureOrigin
import Foundation
import Testing
@testable import ResilienceHarness

/// `--video FIXTURE=RECORDED`: which mappings are taken, and how the shipped scenarios'
/// path globs are carried over to a recording's files (or refused, naming the step).
struct VideoSubstitutionTests {
    /// A catalog directory of streams written by hand: each `(id, protection, keys, files)`,
    /// every file `(url, kind)` with a few bytes of its own.
    static func catalog(_ streams: [(String, String, [String], [(String, RecordedResource.Kind)])]) throws -> String {
        let directory = NSTemporaryDirectory() + "deadzone-substitution-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/files", withIntermediateDirectories: true)
        var resources: [RecordedResource] = []
        var videos: [RecordedVideo] = []
        for (id, protection, keys, files) in streams {
            for (url, kind) in files {
                let file = "files/\(resources.count)"
                let bytes = Data("\(id) \(url)".utf8)
                try bytes.write(to: URL(fileURLWithPath: directory + "/" + file))
                let sha = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
                resources.append(RecordedResource(
                    url: url, kind: kind, file: file, contentType: "application/octet-stream", size: Int64(bytes.count),
                    sha256: sha))
            }
            videos.append(RecordedVideo(
                id: id, name: id, master: files[0].0, duration: 60, protection: protection, licenseKeys: keys,
                resources: files.map(\.0)))
        }
        try RecordedCatalog(videos: videos, resources: resources).write(to: directory)
        return directory
    }

    /// Two clear streams (TS in two variant folders beside their playlists; one
    /// single-file byte-range stream) and one with an skd:// key.
    static func content() throws -> (RecordedContent, String) {
        let host = "https://cdn.example"
        let directory = try catalog([
            ("mine", "clear", [], [
                ("\(host)/show/master.m3u8", .master), ("\(host)/show/v0/index.m3u8", .media),
                ("\(host)/show/v0/seg0.ts", .segment), ("\(host)/show/v0/seg1.ts", .segment),
                ("\(host)/show/v1/index.m3u8", .media), ("\(host)/show/v1/seg0.ts", .segment),
                ("\(host)/show/key.bin", .key),
            ]),
            ("ranges", "clear", [], [
                ("\(host)/single/master.m3u8", .master), ("\(host)/single/main.m3u8", .media),
                ("\(host)/single/main.mp4", .segment),
            ]),
            ("drm", "sample-aes", ["skd://drm/1"], [
                ("\(host)/drm/master.m3u8", .master), ("\(host)/drm/v/index.m3u8", .media), ("\(host)/drm/v/s0.ts", .segment),
            ]),
        ])
        return (try RecordedContent.load([directory]), directory)
    }

    static func file(_ steps: [ScenarioStep]) -> ScenarioFile {
        ScenarioFile(name: "s", summary: "a scenario", steps: steps)
    }

    static func glob(_ step: ScenarioStep) -> String? {
        switch step {
        case .originFault(let fault): fault.path
        case .waitForRequest(let glob, _): glob
        default: nil
        }
    }

    @Test func theShippedGlobsAreCarriedOverToTheRecordingsFilesOfTheirKind() throws {
        let (content, directory) = try Self.content()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let substitution = try VideoSubstitution(parsing: ["clear=mine", "large=ranges"], recorded: content)
        #expect(substitution.videos == ["clear": "mine", "large": "ranges"])
        #expect(substitution.arguments == ["--video", "clear=mine", "--video", "large=ranges"])
        let steps: [ScenarioStep] = [
            .originFault(ScenarioOriginFault(.status(code: 503, retryAfter: nil), path: "/videos/clear/**")),
            .originFault(ScenarioOriginFault(.truncate(afterBytes: 100), path: "/videos/clear/**/*.ts")),
            .originFault(ScenarioOriginFault(.malformedPlaylist, path: "/videos/**/*.ts")),
            .waitForRequest("/videos/large/**"),
            .waitForRequest("/videos/http-key/**"),
            .waitForRequest("/license/**"),
            .waitForRequest("/videos/clear/master.m3u8"),
        ]
        let globs = try substitution.rewritten(Self.file(steps), path: "s.yaml").steps.map(Self.glob)
        #expect(globs == [
            "/show/**",
            "{/show/v0/*.ts,/show/v1/seg0.ts}",  // a folder's one file by its path
            "{/videos/**/*.ts,/show/v0/*.ts,/show/v1/seg0.ts,/single/main.mp4}",
            "/single/**",
            "/videos/http-key/**",  // a fixture no recording stands for is left a fixture
            "/license/**",
            "/show/master.m3u8",
        ])
        // Each rewritten glob matches exactly the files it stands for, among every path served.
        let every = Set(content.streams.flatMap(\.paths))
        let segments = PathPattern(try #require(globs[1]))
        #expect(Set(every.filter(segments.matches)) == ["/show/v0/seg0.ts", "/show/v0/seg1.ts", "/show/v1/seg0.ts"])
        let all = PathPattern(try #require(globs[0]))
        #expect(Set(every.filter(all.matches)) == Set(try #require(content.stream("mine")).paths))
        #expect(PathPattern(try #require(globs[2])).matches("/videos/http-key/400k/seg3.ts"), "the fixtures' segments still")
    }

    @Test func aGlobWithNoCounterpartInARecordingIsRefusedNamingTheStep() throws {
        let (content, directory) = try Self.content()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let substitution = try VideoSubstitution(parsing: ["clear=mine"], recorded: content)
        for glob in ["/videos/clear/400k/*.ts", "/videos/cl*/**", "/videos/clear/subs/**"] {
            let file = Self.file([.hold(.seconds(1)), .waitForRequest(glob)])
            #expect {
                _ = try substitution.rewritten(file, path: "Scenarios/x.yaml")
            } throws: { error in
                let text = "\(error)"
                return text.contains("Scenarios/x.yaml (s), step 2") && text.contains(glob)
            }
        }
        // Requesting the recording itself beside the fixture it stands for: two downloads of one stream.
        let both = Self.file([.request(ScenarioRequest("clear")), .request(ScenarioRequest("mine"))])
        #expect(throws: VideoSubstitutionError.self) { _ = try substitution.rewritten(both, path: "b.yaml") }
    }

    @Test(arguments: [
        ("clear", "expected FIXTURE=RECORDED"),
        ("clear=", "expected FIXTURE=RECORDED"),
        ("nope=mine", "nope is not a fixture video"),
        ("clear=absent", "the recorded streams are mine, ranges, drm"),
        ("protected=mine", "map it to a recording that is sample-aes"),
        ("http-key=mine", "aes-128"),
        ("online-only=mine", "not offline-enabled"),
        ("clear=drm", "clear or aes-128"),
    ])
    func aMappingOfAnotherKindIsRefusedSayingWhatToDo(text: String, expected: String) throws {
        let (content, directory) = try Self.content()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect {
            _ = try VideoSubstitution(parsing: [text], recorded: content)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test func oneRecordingStandsForOneFixtureAndAProtectedOneForAProtectedFixture() throws {
        let (content, directory) = try Self.content()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: VideoSubstitutionError.self) {
            _ = try VideoSubstitution(parsing: ["protected=drm", "multi-drm=ranges"], recorded: content)
        }
        #expect(try VideoSubstitution(parsing: ["protected=drm"], recorded: content).videos == ["protected": "drm"])
        #expect(throws: VideoSubstitutionError.self) {
            _ = try VideoSubstitution(parsing: ["large=mine", "large-b=mine"], recorded: content)
        }
        #expect(throws: VideoSubstitutionError.self) {
            _ = try VideoSubstitution(parsing: ["clear=mine", "clear=ranges"], recorded: content)
        }
    }

    /// A scenario file may give alternatives itself, quoted (a bare `{` starts a YAML mapping).
    @Test func aFileMayNameAlternativesOfGlobs() throws {
        let yaml = { (glob: String) in
            "name: s\nsummary: alternatives\nsteps:\n  - launch\n  - wait-for-request: '\(glob)'\n"
                + "  - origin-fault: {status: 503}\n    path: '\(glob)'\n"
        }
        let file = try ScenarioFile.parse(yaml: yaml("{/show/v0/*.ts,/single/main.mp4}"))
        #expect(file.steps.compactMap(Self.glob) == ["{/show/v0/*.ts,/single/main.mp4}", "{/show/v0/*.ts,/single/main.mp4}"])
        #expect(throws: ScenarioFileError.self) { _ = try ScenarioFile.parse(yaml: yaml("{show/*.ts,/single/main.mp4}")) }
    }

    /// The same stream recorded twice (other paths, the same bytes) cannot stand for two
    /// fixtures: the harness, reading a disk by content, could not tell the downloads apart.
    @Test func twoRecordingsOfTheSameBytesCannotStandForTwoFixtures() throws {
        let directory = NSTemporaryDirectory() + "deadzone-substitution-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/files", withIntermediateDirectories: true)
        let bytes = Data("the same segment".utf8)
        try bytes.write(to: URL(fileURLWithPath: directory + "/files/seg"))
        let sha = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        var resources: [RecordedResource] = []
        var videos: [RecordedVideo] = []
        for id in ["one", "two"] {
            let url = "https://cdn.example/\(id)/seg0.ts"
            resources.append(RecordedResource(url: url, kind: .segment, file: "files/seg", contentType: "video/mp2t",
                size: Int64(bytes.count), sha256: sha))
            videos.append(RecordedVideo(id: id, name: id, master: url, duration: 1, protection: "clear", resources: [url]))
        }
        try RecordedCatalog(videos: videos, resources: resources).write(to: directory)
        let content = try RecordedContent.load([directory])
        #expect(try VideoSubstitution(parsing: ["large=one"], recorded: content).videos == ["large": "one"])
        #expect {
            _ = try VideoSubstitution(parsing: ["large=one", "large-b=two"], recorded: content)
        } throws: { error in
            "\(error)".contains("hold the same bytes (/two/seg0.ts and /one/seg0.ts)")
        }
        // Nor may a scenario request both by their own ids, with no --video at all.
        let plain = try VideoSubstitution(parsing: [], recorded: content)
        let both = Self.file([.request(ScenarioRequest("one")), .requestSpare(["two"])])
        #expect {
            _ = try plain.scenario(of: both, path: "both.yaml")
        } throws: { error in
            "\(error)".hasPrefix("both.yaml (s) downloads the recorded streams one and two, which hold the same bytes")
        }
        _ = try plain.scenario(of: Self.file([.request(ScenarioRequest("one"))]), path: "one.yaml")
        // A chaos campaign leaves the second out of what its scenarios request, saying why.
        let (pool, lines) = ChaosRecordedVideo.pool(in: content)
        #expect(pool.map(\.id) == ["one"] && lines.count == 1 && lines[0].contains("two is not requested"), "\(lines)")
    }

    @Test func withNoSubstitutionAFileIsPlayedAsWritten() throws {
        let file = Self.file([.waitForRequest("/videos/clear/400k/*.ts")])
        #expect(try VideoSubstitution().rewritten(file, path: "f.yaml") == file)
    }
}
