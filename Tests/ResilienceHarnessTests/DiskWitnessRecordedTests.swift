import BenchCore
import Crypto
import FixtureOrigin
import Foundation
@testable import ResilienceHarness
import Testing

/// The harness's disk read at a kill on a recorded stream (`bench --catalog`): files
/// identified by content against the resources the recording's playlists name, byte
/// ranges of one file and init sections included, whatever their names.
@Suite struct DiskWitnessRecordedTests {
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// v0: one MPEG-TS file cut by EXT-X-BYTERANGE into 1000@0, 1500, 1200; v1: fMP4 with
    /// an init section and two segments; v2: one fMP4 file whose init section is its
    /// first 300 bytes (a MAP's BYTERANGE) and whose segments are 800@300 and 900.
    static let tsFile = bytes(3700, seed: 11)
    static let initSection = bytes(700, seed: 12)
    static let seg0 = bytes(2000, seed: 13)
    static let seg1 = bytes(2200, seed: 14)
    static let mp4File = bytes(2000, seed: 15)
    static let files: [(String, RecordedResource.Kind, [UInt8])] = [
        ("master.m3u8", .master, Array("""
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-STREAM-INF:BANDWIDTH=100000
            v0/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=200000
            v1/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=300000
            v2/index.m3u8

            """.utf8)),
        ("v0/index.m3u8", .media, playlist([("1000@0", "all.ts"), ("1500", "all.ts"), ("1200", "all.ts")])),
        ("v1/index.m3u8", .media, playlist([(nil, "seg0.m4s"), (nil, "seg1.m4s")], header: "#EXT-X-MAP:URI=\"init.mp4\"")),
        ("v2/index.m3u8", .media, playlist([("800@300", "all.mp4"), ("900", "all.mp4")],
                                           header: "#EXT-X-MAP:URI=\"all.mp4\",BYTERANGE=\"300@0\"")),
        ("v0/all.ts", .segment, tsFile), ("v1/init.mp4", .initSection, initSection), ("v1/seg0.m4s", .segment, seg0),
        ("v1/seg1.m4s", .segment, seg1), ("v2/all.mp4", .segment, mp4File),
    ]

    /// A media playlist of 1-s segments, each a URI with the BYTERANGE line before it, if any.
    static func playlist(_ segments: [(range: String?, uri: String)], header: String? = nil) -> [UInt8] {
        var text = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD"]
        if let header { text.append(header) }
        for segment in segments {
            text.append("#EXTINF:1.0,")
            if let range = segment.range { text.append("#EXT-X-BYTERANGE:\(range)") }
            text.append(segment.uri)
        }
        return Array((text + ["#EXT-X-ENDLIST", ""]).joined(separator: "\n").utf8)
    }

    /// A store serving the recording of stream `pilot` (from https://cdn.example/pilot/),
    /// with a witness that saw it requested; `body` gets them and a storage directory.
    static func witnessing<T>(_ body: (DiskWitness, ContentStore, String) throws -> T) throws -> T {
        let root = NSTemporaryDirectory() + "deadzone-witness-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        var resources: [RecordedResource] = []
        for (index, (name, kind, content)) in files.enumerated() {
            let file = "files/\(index)"
            try FileManager.default.createDirectory(atPath: root + "/catalog/files", withIntermediateDirectories: true)
            try Data(content).write(to: URL(fileURLWithPath: root + "/catalog/" + file))
            resources.append(RecordedResource(
                url: "https://cdn.example/pilot/\(name)", kind: kind, file: file, contentType: "application/octet-stream",
                size: Int64(content.count), sha256: SHA256.hash(data: content).map { String(format: "%02x", $0) }.joined()))
        }
        let video = RecordedVideo(id: "pilot", name: "pilot", master: resources[0].url, duration: 2, protection: "clear",
                                  resources: resources.map(\.url))
        try RecordedCatalog(videos: [video], resources: resources).write(to: root + "/catalog")
        let store = ContentStore(catalog: Catalog(), recorded: try RecordedContent.load([root + "/catalog"]))
        let witness = DiskWitness()
        witness.requested("pilot")
        try FileManager.default.createDirectory(atPath: root + "/storage", withIntermediateDirectories: true)
        return try body(witness, store, root + "/storage")
    }

    static func put(_ files: [String: [UInt8]], in storage: String) throws {
        for (name, content) in files {
            let path = storage + "/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(content).write(to: URL(fileURLWithPath: path))
        }
    }

    static func request(_ path: String, _ range: String? = nil) -> DiskCandidates.Request {
        DiskCandidates.Request(path: "/pilot/" + path, range: range)
    }

    @Test func byteRangesAndInitSectionsAreIdentifiedWholeOrInPart() throws {
        let seen = try Self.witnessing { witness, store, storage in
            try Self.put([
                "d/0.seg": Array(Self.tsFile[0..<1000]),  // range 0 whole
                "d/1.seg.part": Array(Self.tsFile[1000..<1600]),  // 600 bytes of range 1
                "f/init": Self.initSection, "f/0.m4s": Self.seg0, "f/1.m4s.part": Array(Self.seg1.prefix(100)),
                "g/init": Array(Self.mp4File[0..<300]),  // v2's init section, a range of its file
                "g/0.part": Array(Self.mp4File[300..<500]),  // 200 bytes of v2's first segment range
                "index.sqlite": Self.bytes(64, seed: 99),
            ], in: storage)
            return witness.snapshot(storage: storage, store: store, requests: [
                Self.request("v0/all.ts", "bytes=0-999"), Self.request("v0/all.ts", "bytes=1000-2499"),
                Self.request("v1/init.mp4"), Self.request("v1/seg0.m4s"), Self.request("v1/seg1.m4s"),
                Self.request("v2/all.mp4", "bytes=0-299"), Self.request("v2/all.mp4", "bytes=300-1099"),
            ])
        }
        #expect(seen.stored == ["/pilot/v0/all.ts#bytes=0-999", "/pilot/v1/init.mp4", "/pilot/v1/seg0.m4s",
                                "/pilot/v2/all.mp4#bytes=0-299"])
        #expect(seen.partial == ["/pilot/v0/all.ts#bytes=1000-2499": 600, "/pilot/v1/seg1.m4s": 100,
                                 "/pilot/v2/all.mp4#bytes=300-1099": 200])
        #expect(seen.unknown == ["index.sqlite": 64])
    }

    /// A range's partial copy is a prefix of that range, counted from its first byte: the
    /// file's first 600 bytes are no copy of range 1, and bytes of a range the app was not
    /// asking for are no partial copy of it.
    @Test func aPartialCopyOfARangeIsAPrefixOfThatRangeBeingFetched() throws {
        let seen = try Self.witnessing { witness, store, storage in
            try Self.put([
                "a.part": Array(Self.tsFile[1000..<1400]), "b.part": Array(Self.tsFile[2500..<2600]),
                "c.part": Array(Self.tsFile[0..<600]),
            ], in: storage)
            return witness.snapshot(storage: storage, store: store, requests: [Self.request("v0/all.ts", "bytes=1000-2499")])
        }
        #expect(seen.partial == ["/pilot/v0/all.ts#bytes=1000-2499": 400])
        #expect(seen.unknown == ["b.part": 100, "c.part": 600], "neither range 2, nor range 0 or the whole file, was being fetched")
        #expect(seen.stored.isEmpty)
    }

    /// An app may fetch a single-file stream's file whole (no Range) and keep it so: the
    /// whole file is a resource too, and a prefix of it is a partial copy of it.
    @Test func theWholeFileOfASingleFileStreamIsIdentifiedToo() throws {
        let seen = try Self.witnessing { witness, store, storage in
            try Self.put(["whole.ts": Self.tsFile, "whole.mp4.part": Array(Self.mp4File.prefix(1500))], in: storage)
            return witness.snapshot(storage: storage, store: store, requests: [
                Self.request("v0/all.ts"), Self.request("v2/all.mp4"),
            ])
        }
        #expect(seen.stored == ["/pilot/v0/all.ts"])
        #expect(seen.partial == ["/pilot/v2/all.mp4": 1500])
    }

    /// Nothing of a stream the harness did not request is looked for.
    @Test func aStreamNotRequestedIsNotLookedFor() throws {
        let seen = try Self.witnessing { _, store, storage in
            try Self.put(["0.seg": Array(Self.tsFile[0..<1000])], in: storage)
            return DiskWitness().snapshot(storage: storage, store: store, requests: [Self.request("v0/all.ts", "bytes=0-999")])
        }
        #expect(seen.stored.isEmpty && seen.unknown == ["0.seg": 1000])
    }
}
