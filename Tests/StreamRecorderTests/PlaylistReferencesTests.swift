import BenchCore
import Foundation
@testable import StreamRecorder
import Testing

/// What a playlist names, read without the network.
struct PlaylistReferencesTests {
    let base = URL(string: "https://cdn.example/shows/pilot/master.m3u8")!

    func references(_ text: String, at url: URL? = nil, kind: RecordedResource.Kind = .master) throws -> PlaylistReferences {
        try PlaylistReferences(Data(text.utf8), from: url ?? base, kind: kind)
    }

    @Test func aMasterNamesItsVariantsIFramePlaylistsRenditionsAndSessionKeysOnceEach() throws {
        let found = try references("""
            #EXTM3U
            #EXT-X-SESSION-KEY:METHOD=AES-128,URI="/keys/session.bin"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",URI="audio/en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="main",DEFAULT=YES
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",NAME="en",URI="subs/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=100000,AUDIO="a",SUBTITLES="s"
            low/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=200000,AUDIO="a",SUBTITLES="s"
            https://other.example/high/index.m3u8?token=abc
            #EXT-X-STREAM-INF:BANDWIDTH=300000,AUDIO="a",SUBTITLES="s"
            low/index.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=40000,URI="low/iframes.m3u8"
            """)
        #expect(found.isMaster)
        let listed = found.references.map { "\($0.kind.rawValue) \($0.url.absoluteString) line \($0.line)" }
        #expect(listed == [
            "media https://cdn.example/shows/pilot/low/index.m3u8 line 7",
            "media https://other.example/high/index.m3u8?token=abc line 9",
            "iframes https://cdn.example/shows/pilot/low/iframes.m3u8 line 12",
            "media https://cdn.example/shows/pilot/audio/en.m3u8 line 3",
            "subtitles https://cdn.example/shows/pilot/subs/en.m3u8 line 5",
            "key https://cdn.example/keys/session.bin line 2",
        ])
    }

    @Test func aMediaPlaylistNamesSegmentsInitSectionsAndKeysAndKeepsSkdKeysForTheLicenseServer() throws {
        let media = URL(string: "https://cdn.example/shows/pilot/low/index.m3u8")!
        let found = try references("""
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="700@0"
            #EXT-X-KEY:METHOD=AES-128,URI="k1.bin",IV=0x00000000000000000000000000000001
            #EXTINF:4,
            #EXT-X-BYTERANGE:1000@700
            all.m4s
            #EXTINF:4,
            #EXT-X-BYTERANGE:1000
            all.m4s
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://asset-7",KEYFORMAT="com.apple.streamingkeydelivery"
            #EXTINF:2.5,
            last.m4s
            #EXT-X-ENDLIST
            """, at: media, kind: .media)
        #expect(!found.isMaster)
        #expect(found.duration == 10.5)
        #expect(found.references.map { "\($0.kind.rawValue) \($0.url.lastPathComponent) line \($0.line)" } == [
            "key k1.bin line 5", "init init.mp4 line 4", "segment all.m4s line 8", "segment last.m4s line 14",
        ])
        #expect(found.licenseKeys == ["skd://asset-7"])
        #expect(found.protection == "sample-aes")
    }

    @Test func aSubtitlesPlaylistsSegmentsAreSubtitles() throws {
        let found = try references(
            "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\nen0.vtt\n#EXT-X-ENDLIST\n",
            at: URL(string: "https://cdn.example/subs/en.m3u8")!, kind: .subtitles)
        #expect(found.references.map(\.kind) == [.subtitles])
    }

    @Test func whatCannotBeRecordedIsRefusedNamingTheLine() throws {
        #expect {
            try references("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PLAYLIST-TYPE:EVENT\n#EXTINF:6,\na.ts\n", kind: .media)
        } throws: { error in
            "\(error)" == "\(base) is a live playlist: it has no #EXT-X-ENDLIST (its last line is 5), so it has no end "
                + "to record. Record a VOD stream, or the live stream once it has ended."
        }
        #expect {
            try references("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\nftp://cdn.example/a.ts\n#EXT-X-ENDLIST\n", kind: .media)
        } throws: { error in
            "\(error)".contains("line 4 names ftp://cdn.example/a.ts, which is not an http or https URL")
        }
        #expect {
            try references("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXTINF:6,\n")
        } throws: { error in
            "\(error)".hasPrefix("\(base) is not a playlist the recorder can read: line 3:")
        }
    }

    @Test func urlsBecomeSafeFilesAndQueriesKeepTheirOwnFile() {
        #expect(CatalogPaths.file(for: URL(string: "https://cdn.example:8443/a/b/seg1.ts")!) == "files/cdn.example_8443/a/b/seg1.ts")
        #expect(CatalogPaths.file(for: URL(string: "https://cdn.example/a/../b/")!) == "files/cdn.example/a/_/b/index")
        #expect(CatalogPaths.file(for: URL(string: "https://cdn.example/a%20b/s$1.ts")!) == "files/cdn.example/a_b/s_1.ts")
        let one = CatalogPaths.file(for: URL(string: "https://cdn.example/seg.ts?token=1")!)
        let two = CatalogPaths.file(for: URL(string: "https://cdn.example/seg.ts?token=2")!)
        #expect(one.hasPrefix("files/cdn.example/seg.ts@") && one != two)
    }

    @Test func idsAreGivenOrTakenFromTheStreamsDirectoryAndNeverTwice() throws {
        let urls = ["https://a.example/show/master.m3u8", "https://b.example/show/master.m3u8"].map { URL(string: $0)! }
        #expect(try StreamRecorder.ids(for: urls.map { .init(url: $0) }, existing: []) == ["show", "show-2"])
        let before = RecordedVideo(id: "pilot", name: "Pilot", master: urls[1].absoluteString, duration: 1, protection: "clear")
        #expect(try StreamRecorder.ids(for: urls.map { .init(url: $0) }, existing: [before]) == ["show", "pilot"])
        #expect(throws: RecordError.self) {
            try StreamRecorder.ids(for: [.init(id: "x", url: urls[0]), .init(id: "x", url: urls[1])], existing: [])
        }
        #expect(throws: RecordError.self) { try StreamRecorder.ids(for: [.init(id: "a/b", url: urls[0])], existing: []) }
    }
}
