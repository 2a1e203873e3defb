import Foundation
@testable import OfflineDownloads
import Testing

@Suite("Store: recovery and damage")
struct StoreRecoveryTests {
    typealias F = StoreFixtures

    @Test("after a crash, everything committed is in the index")
    func reopenAfterCrash() async throws {
        try await F.withTemporaryDirectory { dir in
            let live = try DownloadIndex.open(path: dir + "/live/index.sqlite")
            try await live.insert(F.download())
            try await live.insertSegments((0..<3).map { F.segment(index: $0) })
            try await live.recordProgress([SegmentProgress(key: .init(token: "tok-1", stream: "video", index: 1), bytes: 4_096, etag: "\"x\"")])
            try await live.markSegmentComplete(token: "tok-1", stream: "video", index: 0, bytes: 10_000, sha256: "ab", etag: nil)
            try await live.saveLicense(F.license())
            try await live.updateSnapshot(.init(state: .downloading), for: "tok-1")

            // The disk as a crash leaves it: the database and its WAL, copied while the
            // index is open and unclosed, with no checkpoint and no shared-memory index.
            let wal = dir + "/live/index.sqlite-wal"
            #expect((PackageFilesProbe.size(wal) ?? 0) > 0, "the commits are still in the WAL")
            try FileManager.default.createDirectory(atPath: dir + "/after", withIntermediateDirectories: true)
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: dir + "/live/index.sqlite" + suffix, toPath: dir + "/after/index.sqlite" + suffix)
            }

            let recovered = try DownloadIndex.open(path: dir + "/after/index.sqlite")
            var expected = F.download()
            expected.snapshot = .init(state: .downloading)
            expected.bytesDownloaded = 14_096
            #expect(try await recovered.downloads() == [expected])
            let segments = try await recovered.segments(for: "tok-1")
            #expect(segments.map(\.state) == [.complete, .partial, .pending])
            #expect(segments.map(\.bytes) == [10_000, 4_096, 0])
            #expect(segments[1].etag == "\"x\"")
            #expect(try await recovered.license(for: "tok-1") == F.license())
            _ = live
        }
    }

    @Test("a file that is not a database gives the corrupt error, with its path and the remedy")
    func garbageFile() async throws {
        try await F.withTemporaryDirectory { dir in
            let path = dir + "/index.sqlite"
            try Data(String(repeating: "this is not an SQLite database. ", count: 256).utf8).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: IndexError.self) { try DownloadIndex.open(path: path) }
            guard case .corrupt(let reported, _) = error else { Issue.record("expected .corrupt, got \(String(describing: error))"); return }
            #expect(reported == path)
            #expect(error?.description.contains(path) == true)
            #expect(error?.description.contains("delete it to start over") == true)
        }
    }

    @Test("damaged pages in a real index give the corrupt error")
    func damagedPages() async throws {
        try await F.withTemporaryDirectory { dir in
            let path = dir + "/index.sqlite"
            do {
                let index = try DownloadIndex.open(path: path)
                try await index.insert(F.download())
                try index.close()
            }
            #expect((PackageFilesProbe.size(path + "-wal") ?? 0) == 0, "close checkpoints: everything is in the main file")
            // Keep the 100-byte header, overwrite the rest of the first pages.
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seek(toOffset: 100)
            try handle.write(contentsOf: Data(repeating: 0x5A, count: 8_192))
            try handle.close()
            // Opening may succeed (the header is intact); reading the rows may not.
            let error = await #expect(throws: IndexError.self) {
                let index = try DownloadIndex.open(path: path)
                _ = try await index.downloads()
            }
            guard case .corrupt = error else { Issue.record("expected .corrupt, got \(String(describing: error))"); return }
        }
    }

    @Test("an index whose directory cannot be created says so")
    func cannotCreateDirectory() async throws {
        try await F.withTemporaryDirectory { dir in
            try F.writeFile(dir + "/file", count: 1)
            let error = #expect(throws: IndexError.self) { try DownloadIndex.open(path: dir + "/file/index.sqlite") }
            guard case .cannotOpen = error else { Issue.record("expected .cannotOpen, got \(String(describing: error))"); return }
            #expect(error?.description.contains("writable") == true)
        }
    }

    @Test("an index migrated by a newer engine is refused, not damaged")
    func newerSchema() async throws {
        try await F.withTemporaryDirectory { dir in
            let path = dir + "/index.sqlite"
            let index = try DownloadIndex.open(path: path)
            try await index.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')")
            try index.close()
            let error = #expect(throws: IndexError.self) { try DownloadIndex.open(path: path) }
            #expect(error == .writtenByNewerEngine(path: path))
        }
    }

    @Test("SQLite result codes become errors that say what to do")
    func resultCodes() {
        let path = "/data/index.sqlite"
        // (code, the case expected, words the advice must contain)
        let table: [(Int32, IndexError, String)] = [
            (13, .diskFull(path: path), "free some space"),
            (11, .corrupt(path: path, detail: "d"), "delete it to start over"),
            (26, .corrupt(path: path, detail: "d"), "delete it to start over"),
            (14, .cannotOpen(path: path, detail: "d"), "writable"),
            (8, .cannotOpen(path: path, detail: "d"), "writable"),
            (10, .ioFailure(path: path, detail: "d"), "check the disk"),
            (19, .conflict("d"), "nothing was written"),
            (5, .database(path: path, code: 5, detail: "d"), "SQLite error 5"),
        ]
        for (code, expected, advice) in table {
            let error = IndexError.sqlite(code: code, detail: "d", path: path)
            #expect(error == expected, "code \(code)")
            #expect(error.description.contains(advice), "code \(code): \(error)")
        }
    }
}
