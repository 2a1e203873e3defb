import BenchCore
import Crypto
@testable import FixtureOrigin
import Foundation
import Testing

/// Recorded catalogs as the origin loads them: paths, redirects, and what it refuses.
struct RecordedContentTests {
    /// A catalog directory written by hand: each `(url, bytes)` a resource of one stream `id`.
    static func catalog(
        _ id: String, _ files: [(String, String)], redirect: (from: String, to: String)? = nil
    ) throws -> String {
        let directory = NSTemporaryDirectory() + "deadzone-recorded-\(UUID().uuidString)"
        var resources: [RecordedResource] = []
        for (index, (url, text)) in files.enumerated() {
            let file = "files/\(index)"
            try FileManager.default.createDirectory(atPath: directory + "/files", withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + file))
            let sha = SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
            var resource = RecordedResource(
                url: url, kind: index == 0 ? .master : .segment, file: file, contentType: "text/plain", size: Int64(text.utf8.count),
                sha256: sha)
            if let redirect, redirect.from == url { resource.redirects = [RecordedRedirect(status: 302, location: redirect.to)] }
            resources.append(resource)
        }
        let video = RecordedVideo(
            id: id, name: id, master: files[0].0, duration: 4, protection: "clear", resources: files.map(\.0))
        try RecordedCatalog(videos: [video], resources: resources).write(to: directory)
        return directory
    }

    @Test func eachResourceIsServedAtItsURLsPathAndARedirectAtTheOneBefore() throws {
        let directory = try Self.catalog(
            "show", [("https://cdn.example/a/master.m3u8", "#EXTM3U\n"), ("https://cdn.example/a/seg%201.ts?t=9", "one")],
            redirect: (from: "https://cdn.example/a/master.m3u8", to: "https://edge.example/b/master.m3u8"))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let content = try RecordedContent.load([directory])
        #expect(content.entry(at: "/a/master.m3u8") == .redirect(status: 302, location: "/b/master.m3u8"))
        guard case .file(_, _, let size, _) = content.entry(at: "/b/master.m3u8") else {
            Issue.record("the redirect's target is not served")
            return
        }
        #expect(size == 8)
        #expect(content.entry(at: "/a/seg%201.ts?t=1") != nil, "a query is not part of the path served")
        let stream = try #require(content.stream("show"))
        #expect(stream.masterPath == "/b/master.m3u8" && stream.paths == ["/b/master.m3u8", "/a/seg%201.ts"])
        let resource = try #require(try content.resource(at: "/a/seg%201.ts", lastModified: Date(timeIntervalSince1970: 0)))
        #expect(resource.bytes == Array("one".utf8))
        #expect(content.hashManifest(of: stream).entries["/a/seg%201.ts"]?.sha256 == resource.sha256)
    }

    @Test func whatCannotBeServedIsRefusedSayingWhatToDo() throws {
        let one = try Self.catalog("show", [("https://cdn.example/a/master.m3u8", "#EXTM3U\n"), ("https://cdn.example/a/s.ts", "one")])
        let other = try Self.catalog("other", [("https://cdn2.example/a/master.m3u8", "#EXTM3U\n"), ("https://cdn2.example/a/s.ts", "two")])
        let twin = try Self.catalog("show", [("https://cdn3.example/z/master.m3u8", "#EXTM3U\n")])
        let empty = NSTemporaryDirectory() + "deadzone-recorded-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { for directory in [one, other, twin, empty] { try? FileManager.default.removeItem(atPath: directory) } }

        func refusal(_ directories: [String], reserved: Set<String> = []) -> String {
            do {
                _ = try RecordedContent.load(directories, reservedIDs: reserved)
                return "loaded"
            } catch { return "\(error)" }
        }
        #expect(refusal([one, other]).contains("two recorded resources would be served at /a/s.ts with different bytes"))
        #expect(refusal([one, twin]).contains("a stream named show is recorded in an earlier catalog too"))
        #expect(refusal([one], reserved: ["show"]).contains("show is also a fixture video's id"))
        #expect(refusal([empty]).contains("has no catalog.json: it is not a catalog `bench record` wrote"))
        try FileManager.default.removeItem(atPath: one + "/files/1")
        #expect(refusal([one]).contains("https://cdn.example/a/s.ts cannot be served: its file files/1 is missing"))
    }
}
