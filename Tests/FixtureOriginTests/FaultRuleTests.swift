import BenchCore
import Foundation
import HLSPlaylist
import TestSupport
import Testing
@testable import FixtureOrigin

struct FaultRuleTests {
    @Test(arguments: [
        ("/videos/*/480p/seg*.ts", "/videos/v1/480p/seg12.ts", true),
        ("/videos/*/480p/seg*.ts", "/videos/v1/480p/seg.ts", true),
        ("/videos/*/480p/seg*.ts", "/videos/a/b/480p/seg1.ts", false),  // * never crosses /
        ("/videos/*/480p/seg*.ts", "/videos/v1/720p/seg1.ts", false),
        ("/videos/*/480p/seg*.ts", "/videos/v1/480p/seg1.ts.bak", false),  // whole path
        ("/videos/*", "/videos/v1", true),
        ("/videos/*", "/videos/v1/master.m3u8", false),
        ("/videos/**", "/videos/v1/master.m3u8", true),  // ** crosses /
        ("/videos/**", "/videos/", true),
        ("/videos/**/seg*.ts", "/videos/v1/480p/seg3.ts", true),
        ("/videos/**/seg*.ts", "/videos/seg3.ts", true),  // **/ may match no component
        ("/videos/**/seg*.ts", "/videosseg3.ts", false),
        ("**.m3u8", "/videos/v1/480p/index.m3u8", true),
        ("**.m3u8", "/videos/v1/480p/seg1.ts", false),
        ("/a/**b", "/a/x/y/b", true),
        ("/seg?.ts", "/seg1.ts", true),
        ("/seg?.ts", "/seg12.ts", false),
        ("/a?b", "/a/b", false),  // ? never matches /
        ("/license", "/license", true),
        ("/license", "/License", false),
        ("", "", true),
        ("*", "", true),
        ("/a/*/c", "/a//c", true),
        ("{/ts/v0/*.ts,/ts/main.mp4}", "/ts/v0/seg3.ts", true),  // alternatives of the whole path
        ("{/ts/v0/*.ts,/ts/main.mp4}", "/ts/main.mp4", true),
        ("{/ts/v0/*.ts,/ts/main.mp4}", "/ts/v0/index.m3u8", false),
        ("{/ts/v0/*.ts,/ts/main.mp4}", "/ts/v0/*.ts,/ts/main.mp4", false),
        ("/a{b", "/a{b", true),  // a brace elsewhere is a character
    ])
    func globMatching(pattern: String, path: String, expected: Bool) {
        #expect(PathPattern(pattern).matches(path) == expected)
    }

    @Test func pathologicalPatternsStayFast() {
        let pattern = PathPattern(String(repeating: "*a", count: 30) + "b")
        #expect(!pattern.matches(String(repeating: "a", count: 2_000)))
        let globs = PathPattern(String(repeating: "**/", count: 20) + "x")
        #expect(!globs.matches(String(repeating: "a/", count: 200)))
    }

    @Test(.cpuHeavy) func probabilityFiresAboutAsOftenAsSaid() throws {
        for p in [0.1, 0.5, 0.9] {
            var set = try FaultRuleSet(
                rules: [FaultRule(path: "/**", fault: .status(500, retryAfter: nil), probability: p)], seed: 42)
            let n = 20_000
            let fired = (0..<n).filter { _ in set.decide(method: "GET", path: "/x") != nil }.count
            #expect(abs(Double(fired) / Double(n) - p) < 0.02, "p=\(p) fired \(fired)/\(n)")
            #expect(set.fired["/**"] == fired)
        }
        var never = try FaultRuleSet(rules: [FaultRule(path: "/**", fault: .malformedPlaylist, probability: 0)])
        #expect((0..<1_000).allSatisfy { _ in never.decide(method: "GET", path: "/x") == nil })
    }

    @Test func sameSeedSameDecisions() throws {
        func run(seed: UInt64) throws -> [Bool] {
            var set = try FaultRuleSet(rules: [FaultRule(path: "/**", fault: .truncateBody(afterBytes: 1), probability: 0.3)], seed: seed)
            return (0..<200).map { _ in set.decide(method: "GET", path: "/a") != nil }
        }
        #expect(try run(seed: 1) == run(seed: 1))
        #expect(try run(seed: 1) != run(seed: 2))
    }

    @Test func countIsExhaustedThenTheNextRuleApplies() throws {
        var set = try FaultRuleSet(rules: [
            FaultRule(id: "twice", path: "/seg*.ts", fault: .status(503, retryAfter: .seconds(2)), count: 2),
            FaultRule(id: "fallback", path: "/**", fault: .addedTimeToFirstByte(.milliseconds(300))),
        ])
        #expect(set.remaining(ruleID: "twice") == 2)
        let decisions = (0..<4).map { _ in set.decide(method: "GET", path: "/seg1.ts") }
        #expect(decisions.map(\.?.ruleID) == ["twice", "twice", "fallback", "fallback"])
        #expect(decisions.map(\.?.firing) == [1, 2, 1, 2])
        #expect(decisions[0]?.fault.retryAfterHeaderValue == "2")
        #expect(set.remaining(ruleID: "twice") == 0 && set.remaining(ruleID: "fallback") == nil)
        #expect(set.fired == ["twice": 2, "fallback": 2])
    }

    @Test func firstMatchWinsAndMethodFilters() throws {
        var set = try FaultRuleSet(rules: [
            FaultRule(id: "head-only", path: "/videos/**", method: "head", fault: .status(404, retryAfter: nil)),
            FaultRule(id: "gone", path: "/videos/v3/**", fault: .status(410, retryAfter: nil)),
            FaultRule(id: "all", path: "/videos/**", fault: .wrongContentLength(delta: 10)),
        ])
        #expect(set.decide(method: "HEAD", path: "/videos/v3/a.ts")?.ruleID == "head-only")
        #expect(set.decide(method: "GET", path: "/videos/v3/a.ts")?.ruleID == "gone")
        #expect(set.decide(method: "GET", path: "/videos/v3/a.ts?token=1")?.ruleIndex == 1)  // query ignored
        #expect(set.decide(method: "GET", path: "/videos/v1/a.ts")?.fault == .wrongContentLength(delta: 10))
        #expect(set.decide(method: "GET", path: "/license") == nil)
    }

    @Test func rulesChangeLive() throws {
        var set = try FaultRuleSet(rules: [FaultRule(id: "a", path: "/a", fault: .malformedPlaylist, count: 1)])
        #expect(set.decide(method: "GET", path: "/a") != nil)
        #expect(set.decide(method: "GET", path: "/a") == nil)  // used up
        try set.replace(id: "a", with: FaultRule(id: "a", path: "/a", fault: .malformedPlaylist, count: 1))
        #expect(set.decide(method: "GET", path: "/a") != nil)  // replacing starts the count afresh
        try set.add(FaultRule(id: "b", path: "/**", fault: .truncateBody(afterBytes: 0)), at: 0)
        #expect(set.rules.map(\.id) == ["b", "a"])
        #expect(set.decide(method: "GET", path: "/a")?.ruleID == "b")
        #expect(throws: FaultRuleSetError.self) { try set.add(FaultRule(id: "b", path: "/c", fault: .malformedPlaylist)) }
        #expect(throws: FaultRuleSetError.self) { try set.add(FaultRule(path: "/c", fault: .status(200, retryAfter: nil))) }
        #expect(throws: FaultRuleSetError.self) { try set.add(FaultRule(path: "/c", fault: .malformedPlaylist, probability: 2)) }
        #expect(throws: FaultRuleSetError.self) { try set.replace(id: "zz", with: FaultRule(path: "/", fault: .malformedPlaylist)) }
        #expect(set.remove(id: "b")?.id == "b")
        #expect(set.remove(id: "b") == nil)
        try set.replaceAll(with: [])
        #expect(set.rules.isEmpty && set.decide(method: "GET", path: "/a") == nil)
    }

    @Test func codableRoundTrip() throws {
        var set = try FaultRuleSet(rules: [
            FaultRule(id: "s", path: "/videos/*/480p/seg*.ts", method: "GET", fault: .status(503, retryAfter: .milliseconds(1500)), probability: 0.25, count: 3),
            FaultRule(path: "/t", fault: .truncateBody(afterBytes: 1000)),
            FaultRule(path: "/w", fault: .wrongContentLength(delta: -5)),
            FaultRule(path: "/f", fault: .stallBody(afterBytes: 10, duration: nil)),
            FaultRule(path: "/d", fault: .stallBody(afterBytes: 10, duration: .nanoseconds(1_234_567))),
            FaultRule(path: "/m", fault: .malformedPlaylist),
            FaultRule(path: "/x", fault: .addedTimeToFirstByte(.seconds(2))),
        ], seed: 9)
        _ = set.decide(method: "GET", path: "/t")
        let data = try JSONEncoder().encode(set)
        let back = try FaultRuleSet.parse(json: data)
        #expect(back.rules == set.rules && back.seed == 9 && back.fired == ["/t": 1])
        for rule in set.rules {
            #expect(try JSONDecoder().decode(FaultRule.self, from: JSONEncoder().encode(rule)) == rule)
        }
    }

    @Test func parsesTheDocumentedForm() throws {
        let json = #"""
        {"seed": 42,
         "rules": [
           {"id": "gone", "path": "/videos/v3/**", "fault": {"type": "status", "code": 410}},
           {"path": "/videos/*/480p/seg*.ts", "fault": {"type": "truncate_body", "after_bytes": 1000},
            "probability": "10%", "count": 5},
           {"path": "/slow", "fault": {"type": "added_time_to_first_byte", "duration": 1.5}},
           {"path": "/stall", "fault": {"type": "stall_body", "after_bytes": 4096, "duration": "30s"}}
         ]}
        """#
        let set = try FaultRuleSet.parse(json: Array(json.utf8))
        #expect(set.seed == 42)
        #expect(set.rules[0] == FaultRule(id: "gone", path: "/videos/v3/**", fault: .status(410, retryAfter: nil)))
        #expect(set.rules[1].id == "/videos/*/480p/seg*.ts" && set.rules[1].probability == 0.1 && set.rules[1].count == 5)
        #expect(set.rules[2].fault == .addedTimeToFirstByte(.milliseconds(1500)))
        #expect(set.rules[3].fault == .stallBody(afterBytes: 4096, duration: .seconds(30)))
        for bad in [
            #"{"rules": [{"path": "/a", "fault": {"type": "status", "code": 302}}]}"#,
            #"{"rules": [{"path": "/a", "fault": {"type": "teleport"}}]}"#,
            #"{"rules": [{"path": "/a", "fault": {"type": "stall_body", "after_bytes": 1, "duration": "soon"}}]}"#,
            #"{"rules": [{"path": "/a", "fault": {"type": "malformed_playlist"}, "probability": 1.5}]}"#,
            #"{"rules": [{"path": "/a", "fault": {"type": "malformed_playlist"}}, {"path": "/a", "fault": {"type": "malformed_playlist"}}]}"#,
            "not json",
        ] {
            #expect(throws: FaultRuleSetError.self) { try FaultRuleSet.parse(json: Array(bad.utf8)) }
        }
    }

    static let media = """
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-TARGETDURATION:4
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXTINF:4.0,
        seg0.ts
        #EXTINF:4.0,
        seg1.ts
        #EXT-X-ENDLIST

        """
    static let master = """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360
        480p/index.m3u8

        """

    @Test(arguments: [media, master, "#EXTM3U\n", "", "garbage"])
    func malformedPlaylistIsDeterministicAndUnparseable(playlist: String) {
        let corrupted = HTTPFault.corrupt(playlist: playlist)
        #expect(corrupted == HTTPFault.corrupt(playlist: playlist))
        #expect(corrupted != playlist)
        #expect(throws: PlaylistError.self) { try Playlist.parse(corrupted) }
    }

    /// The control for the test above: the originals parse, to what they say, so it is
    /// the corruption that breaks them.
    @Test func originalPlaylistsParse() throws {
        guard case .media(let media) = try Playlist.parse(Self.media) else {
            Issue.record("the media original did not parse as a media playlist")
            return
        }
        #expect(media.targetDuration == 4 && media.playlistType == .vod && media.endList)
        #expect(media.segments.map(\.uri) == ["seg0.ts", "seg1.ts"])
        #expect(media.segments.map(\.duration) == [4.0, 4.0])
        guard case .master(let master) = try Playlist.parse(Self.master) else {
            Issue.record("the master original did not parse as a master playlist")
            return
        }
        #expect(master.variants.map(\.uri) == ["480p/index.m3u8"])
        #expect(master.variants.first?.bandwidth == 800_000)
        #expect(master.variants.first?.resolution == Resolution(width: 640, height: 360))
    }

    /// `bench origin --faults FILE` reads a file with `load(contentsOf:)`: a bad one is
    /// refused with the file name, what is wrong, and where.
    @Test(arguments: [
        (#"{"rules": [{"path": "/a", "fault": {"type": "status", "code": 410}}, {"path": "/b", "fault": {"type": "status", "code": "x"}}]}"#,
         "rules[1].fault.code"),
        (#"{"rules": [{"path": "/a", "fault": {"type": "status", "code": 410}}, {"fault": {"type": "malformed_playlist"}}]}"#,
         "rules[1]: missing \"path\""),
        (#"{"rules": [{"path": "/a", "fault": {"type": "malformed_playlist"}, "probability": 1.5}]}"#,
         "rules[0]: rule '/a': probability must be between 0 and 1"),
        (#"{"rules": [{"path": "/a", "fault": {"type": "teleport"}}]}"#, "rules[0].fault.type"),
        ("{\"rules\": [\n  {\"path\": \"/a\",,}\n]}", "line 2"),
    ])
    func loadingABadFileSaysWhatAndWhere(json: String, expected: String) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("faults-\(UUID().uuidString).json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try FaultRuleSet.load(contentsOf: path)
            Issue.record("\(json) loaded")
        } catch {
            #expect(error.description.hasPrefix("\(path): fault rules"), "\(error)")
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    @Test func loadingReadsAGoodFileAndNamesAMissingOne() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("faults-\(UUID().uuidString).json").path
        try Data(#"{"seed": 3, "rules": [{"id": "gone", "path": "/videos/**", "fault": {"type": "status", "code": 410}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let set = try FaultRuleSet.load(contentsOf: path)
        #expect(set.seed == 3 && set.rules.map(\.id) == ["gone"])
        #expect(throws: FaultRuleSetError.self) { try FaultRuleSet.load(contentsOf: path + ".missing") }
    }
}
