import Foundation
@testable import OfflineDownloads
import Testing

@Suite("Store: DownloadIndex downloads")
struct StoreIndexTests {
    typealias F = StoreFixtures

    @Test("a fresh file is created with its directory and migrated to v2")
    func migratesFreshFile() async throws {
        try await F.withTemporaryDirectory { dir in
            let path = dir + "/nested/deeper/index.sqlite"
            let index = try DownloadIndex.open(path: path)
            #expect(F.exists(path))
            #expect(try await index.appliedMigrations() == ["v1", "v2"])
            // The schema is usable: every table takes a row.
            try await index.insert(F.download())
            try await index.insertSegments([F.segment(index: 0)])
            try await index.saveLicense(F.license())
            #expect(try await index.downloads().count == 1)
            try index.close()
            // Opening again migrates nothing and keeps the rows.
            let again = try DownloadIndex.open(path: path)
            #expect(try await again.appliedMigrations() == ["v1", "v2"])
            #expect(try await again.download("tok-1") == F.download())
        }
    }

    @Test("the user's settings are stored and outlive the index's process")
    func settingsOutliveAReopen() async throws {
        try await F.withTemporaryDirectory { dir in
            let index = try DownloadIndex.open(path: dir + "/index.sqlite")
            #expect(try await index.setting("allowsCellular") == nil)
            try await index.setSetting("allowsCellular", to: "false")
            try await index.setSetting("allowsCellular", to: "true")
            try index.close()
            let again = try DownloadIndex.open(path: dir + "/index.sqlite")
            #expect(try await again.setting("allowsCellular") == "true")
        }
    }

    @Test("a file index runs in WAL mode with synchronous FULL and foreign keys")
    func walMode() async throws {
        try await F.withTemporaryDirectory { dir in
            let index = try DownloadIndex.open(path: dir + "/index.sqlite")
            #expect(try await index.pragma("journal_mode") == "wal")
            #expect(try await index.pragma("synchronous") == "2")
            #expect(try await index.pragma("foreign_keys") == "1")
        }
    }

    @Test("a download round-trips every field, on a file and in memory")
    func downloadRoundTrip() async throws {
        try await F.withTemporaryDirectory { dir in
            for index in [try DownloadIndex.open(path: dir + "/index.sqlite"), try DownloadIndex.inMemory()] {
                let record = F.download()
                try await index.insert(record)
                #expect(try await index.download("tok-1") == record, "\(index.path)")
                #expect(try await index.download("nope") == nil)
            }
        }
    }

    @Test("a token is used once; updating a missing download says it is not found")
    func conflictsAndMissing() async throws {
        let index = try DownloadIndex.inMemory()
        try await index.insert(F.download())
        let duplicate = await #expect(throws: IndexError.self) { try await index.insert(F.download()) }
        guard case .conflict = duplicate else { Issue.record("expected .conflict, got \(String(describing: duplicate))"); return }
        let missing = await #expect(throws: IndexError.self) { try await index.update(F.download("ghost")) }
        guard case .notFound = missing else { Issue.record("expected .notFound, got \(String(describing: missing))"); return }
        #expect(missing?.description.contains("ghost") == true)
        let snapshot = await #expect(throws: IndexError.self) {
            try await index.updateSnapshot(.init(state: .downloading), for: "ghost")
        }
        #expect(snapshot == .notFound("the download ghost"))
    }

    @Test("update, updateDownload and updateSnapshot write what they say")
    func updates() async throws {
        let index = try DownloadIndex.inMemory()
        try await index.insert(F.download())
        var changed = F.download()
        changed.displayName = "Sintel"
        changed.selection.audioLanguages = ["ja"]
        changed.finishedAt = nil
        try await index.update(changed)
        #expect(try await index.download("tok-1") == changed)

        let snapshot = DownloadStateMachine.Snapshot(state: .failed, failure: .httpStatus(410))
        try await index.updateSnapshot(snapshot, for: "tok-1")
        let stored = try await index.updateDownload("tok-1") { $0.errorMessage = nil }
        #expect(stored.snapshot == snapshot)
        #expect(stored.errorMessage == nil)
        #expect(stored.displayName == "Sintel")
        #expect(try await index.download("tok-1") == stored)
    }

    @Test("downloads are listed oldest request first")
    func listOrder() async throws {
        let index = try DownloadIndex.inMemory()
        try await index.insert(F.download("b", requestedAt: F.requested.addingTimeInterval(10)))
        try await index.insert(F.download("c", requestedAt: F.requested.addingTimeInterval(5)))
        try await index.insert(F.download("a", requestedAt: F.requested.addingTimeInterval(20)))
        #expect(try await index.downloads().map(\.token) == ["c", "b", "a"])
    }

    @Test("deleting a download deletes its segments and its license, and nothing else")
    func cascadeDelete() async throws {
        let index = try DownloadIndex.inMemory()
        for token in ["keep", "drop"] {
            try await index.insert(F.download(token))
            try await index.insertSegments((0..<3).map { F.segment(token, index: $0) })
            try await index.saveLicense(F.license(token))
        }
        #expect(try await index.delete("drop"))
        #expect(try await index.download("drop") == nil)
        #expect(try await index.segments(for: "drop").isEmpty)
        #expect(try await index.license(for: "drop") == nil)
        #expect(try await index.segments(for: "keep").count == 3)
        #expect(try await index.license(for: "keep") != nil)
        #expect(try await index.delete("drop") == false)
        // No orphan rows anywhere: the cascade is in the schema, not in a query.
        try await index.execute(sql: "DELETE FROM download WHERE token = 'keep'")
        #expect(try await index.segments(for: "keep").isEmpty)
        #expect(try await index.license(for: "keep") == nil)
    }
}
