import BenchCore
import Foundation
import ResilienceHarness
import Testing

/// The harness's disk reading: files in a scratch directory identified by content
/// against origin resources, never by name.
@Suite struct DiskContentMatcherTests {
    /// `count` seeded bytes.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static let a = bytes(500, seed: 1)
    static let b = bytes(300, seed: 2)
    static let shared = bytes(100, seed: 3)
    static let c = shared + bytes(200, seed: 4)
    static let d = shared + bytes(250, seed: 5)
    static let e = bytes(40, seed: 6)
    static let resources: [String: [UInt8]] = [
        "/videos/v/400k/seg0.ts": a, "/videos/v/400k/seg1.ts": b, "/videos/v/400k/seg2.ts": c,
        "/videos/v/400k/seg3.ts": d, "/videos/v/key": e, "/videos/v/400k/seg4.ts": bytes(300, seed: 7),
    ]

    /// A matcher over `resources`, with the app fetching every path but seg4.
    static func matcher(fetching: Set<String>? = nil) -> DiskContentMatcher {
        let all = resources
        return DiskContentMatcher(
            resources: all.map { OriginResourceDigest(path: $0.key, bytes: $0.value) },
            fetching: fetching ?? Set(all.keys).subtracting(["/videos/v/400k/seg4.ts"])) { all[$0] }
    }

    /// A scratch directory with `files` (relative path → content), removed after `body`.
    static func scratch<T>(_ files: [String: [UInt8]], _ body: (String) throws -> T) throws -> T {
        let root = NSTemporaryDirectory() + "deadzone-disk-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (name, content) in files {
            let path = root + "/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(content).write(to: URL(fileURLWithPath: path))
        }
        return try body(root)
    }

    @Test func identifiesStoredPartialAndUnknownFilesByContent() throws {
        let files: [String: [UInt8]] = [
            "pkg/any-name.bin": Self.a,  // whole seg0, whatever its name
            "pkg/video/seg00001.ts.part": Array(Self.b.prefix(120)),  // 120 bytes of seg1: past the head
            "pkg/key.part": Array(Self.e.prefix(10)),  // 10 bytes of the key: within the head
            "index.sqlite": Self.bytes(64, seed: 9),
            "pkg/video/seg00000.ts": Array(Self.a.prefix(499)) + [Self.a[499] ^ 1],  // seg0 with its last byte changed
        ]
        let seen = try Self.scratch(files) { root in Self.matcher().identify(DiskFile.walk(root), in: root) }
        #expect(seen.stored == ["/videos/v/400k/seg0.ts"])
        #expect(seen.partial == ["/videos/v/400k/seg1.ts": 120, "/videos/v/key": 10])
        #expect(seen.unknown == ["index.sqlite": 64, "pkg/video/seg00000.ts": 500])
    }

    /// 80 bytes both seg2 and seg3 begin with: a prefix of two resources names neither.
    @Test func aPrefixOfTwoResourcesIsUnknown() throws {
        let files = ["seg.part": Array(Self.shared.prefix(80)), "longer.part": Array(Self.c.prefix(150))]
        let seen = try Self.scratch(files) { root in Self.matcher().identify(DiskFile.walk(root), in: root) }
        #expect(seen.partial == ["/videos/v/400k/seg2.ts": 150])
        #expect(seen.unknown == ["seg.part": 80])
    }

    /// A prefix counts only of a resource the app was fetching before the kill.
    @Test func aPrefixOfAResourceNotBeingFetchedIsUnknown() throws {
        let seg4 = try #require(Self.resources["/videos/v/400k/seg4.ts"])
        let files = ["a.part": Array(seg4.prefix(100)), "b.part": Array(Self.b.prefix(100))]
        let seen = try Self.scratch(files) { root in Self.matcher().identify(DiskFile.walk(root), in: root) }
        #expect(seen.partial == ["/videos/v/400k/seg1.ts": 100])
        #expect(seen.unknown == ["a.part": 100])
    }

    /// Empty files hold nothing of anything; a whole copy is stored even when not fetched.
    @Test func emptyFilesAreUnknownAndWholeCopiesAreStored() throws {
        let seg4 = try #require(Self.resources["/videos/v/400k/seg4.ts"])
        let files: [String: [UInt8]] = ["empty.part": [], "x": seg4, "y": Self.b]
        let seen = try Self.scratch(files) { root in Self.matcher().identify(DiskFile.walk(root), in: root) }
        #expect(seen.stored == ["/videos/v/400k/seg1.ts", "/videos/v/400k/seg4.ts"])
        #expect(seen.partial.isEmpty)
        #expect(seen.unknown == ["empty.part": 0])
    }

    /// Two partial copies of one path: the second is unknown (the map holds one size).
    @Test func aSecondPartialCopyOfAPathIsUnknown() throws {
        let files = ["1.part": Array(Self.a.prefix(200)), "2.part": Array(Self.a.prefix(300))]
        let seen = try Self.scratch(files) { root in Self.matcher().identify(DiskFile.walk(root), in: root) }
        #expect(seen.partial == ["/videos/v/400k/seg0.ts": 200])
        #expect(seen.unknown == ["2.part": 300])
    }

    @Test func theWalkListsRegularFilesOnly() throws {
        let listed = try Self.scratch(["a/b/c.ts": [1, 2, 3], "d": []]) { root in
            try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: root + "/d")
            try FileManager.default.createDirectory(atPath: root + "/empty-dir", withIntermediateDirectories: true)
            return DiskFile.walk(root)
        }
        #expect(listed == [DiskFile(relativePath: "a/b/c.ts", size: 3), DiskFile(relativePath: "d", size: 0)])
        #expect(DiskFile.walk("/nonexistent-\(UUID().uuidString)").isEmpty)
    }
}
