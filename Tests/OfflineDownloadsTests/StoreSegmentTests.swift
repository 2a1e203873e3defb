import Foundation
@testable import OfflineDownloads
import Testing

@Suite("Store: DownloadIndex segments")
struct StoreSegmentTests {
    typealias F = StoreFixtures
    typealias Key = SegmentRecord.Key

    /// An index holding download `tok-1`.
    static func index() async throws -> DownloadIndex {
        let index = try DownloadIndex.inMemory()
        try await index.insert(F.download())
        return index
    }

    @Test("segments round-trip every field and list in ordinal order, across streams")
    func roundTripAndOrder() async throws {
        let index = try await Self.index()
        var full = F.segment(stream: "audio_fr", index: 4, ordinal: 1, expectedLength: 9_000, bytes: 9_000, state: .complete)
        full.etag = "\"abc\""
        full.sha256 = String(repeating: "e3", count: 32)
        let segments = [
            F.segment(stream: "video", index: 0, ordinal: 2),
            full,
            F.segment(stream: "subs_de", index: 0, ordinal: 0, expectedLength: 12, bytes: 5, state: .partial),
        ]
        try await index.insertSegments(segments)
        let stored = try await index.segments(for: "tok-1")
        #expect(stored == [segments[2], segments[1], segments[0]])
        #expect(try await index.segments(for: "other").isEmpty)
    }

    @Test("a bulk insert that fails in the middle leaves nothing behind")
    func bulkInsertIsAtomic() async throws {
        let index = try await Self.index()
        let batches: [(String, [SegmentRecord])] = [
            ("same key twice", [F.segment(index: 0), F.segment(index: 1), F.segment(index: 1, ordinal: 7), F.segment(index: 2)]),
            ("same ordinal twice", [F.segment(index: 0), F.segment(index: 1, ordinal: 0), F.segment(index: 2)]),
            ("unknown download", [F.segment(index: 0), F.segment("ghost", index: 1), F.segment(index: 2)]),
        ]
        for (name, batch) in batches {
            let error = await #expect(throws: IndexError.self, "\(name)") { try await index.insertSegments(batch) }
            guard case .conflict = error else { Issue.record("\(name): expected .conflict, got \(String(describing: error))"); continue }
            #expect(try await index.segments(for: "tok-1").isEmpty, "\(name)")
            #expect(try await index.summary(for: "tok-1").segmentCount == 0, "\(name)")
        }
    }

    @Test("markSegmentComplete records bytes, hash, ETag and length, and keeps a known ETag")
    func markComplete() async throws {
        let index = try await Self.index()
        var withTag = F.segment(index: 1, expectedLength: 500, bytes: 100, state: .partial)
        withTag.etag = "\"v1\""
        try await index.insertSegments([F.segment(index: 0), withTag])
        try await index.markSegmentComplete(token: "tok-1", stream: "video", index: 0, bytes: 1_000, sha256: "aa", etag: "\"v0\"")
        try await index.markSegmentComplete(token: "tok-1", stream: "video", index: 1, bytes: 500, sha256: "bb", etag: nil)
        let stored = try await index.segments(for: "tok-1")
        #expect(stored.map(\.state) == [.complete, .complete])
        #expect(stored.map(\.bytes) == [1_000, 500])
        #expect(stored.map(\.expectedLength) == [1_000, 500])
        #expect(stored.map(\.sha256) == ["aa", "bb"])
        #expect(stored.map(\.etag) == ["\"v0\"", "\"v1\""])
        #expect(try await index.download("tok-1")?.bytesDownloaded == 1_500)

        let error = await #expect(throws: IndexError.self) {
            try await index.markSegmentComplete(token: "tok-1", stream: "video", index: 9, bytes: 1, sha256: nil, etag: nil)
        }
        #expect(error == .notFound("the segment tok-1/video#9"))
    }

    @Test("recordProgress writes a batch: bytes, partial state, ETag and length when known")
    func recordProgress() async throws {
        let index = try await Self.index()
        try await index.insertSegments((0..<4).map { F.segment(index: $0) })
        try await index.markSegmentComplete(token: "tok-1", stream: "video", index: 3, bytes: 800, sha256: "cc", etag: nil)
        let updated = try await index.recordProgress([
            SegmentProgress(key: Key(token: "tok-1", stream: "video", index: 0), bytes: 300, etag: "\"e0\"", expectedLength: 900),
            SegmentProgress(key: Key(token: "tok-1", stream: "video", index: 1), bytes: 0),
            // Flushed after the segment completed: must not undo the completion.
            SegmentProgress(key: Key(token: "tok-1", stream: "video", index: 3), bytes: 10),
            // A download deleted meanwhile: ignored.
            SegmentProgress(key: Key(token: "ghost", stream: "video", index: 0), bytes: 10),
        ])
        #expect(updated == 2)
        // A later report without ETag nor length keeps the ones known.
        try await index.recordProgress([SegmentProgress(key: Key(token: "tok-1", stream: "video", index: 0), bytes: 600)])
        let stored = try await index.segments(for: "tok-1")
        #expect(stored.map(\.bytes) == [600, 0, 0, 800])
        #expect(stored.map(\.state) == [.partial, .pending, .pending, .complete])
        #expect(stored[0].etag == "\"e0\"")
        #expect(stored[0].expectedLength == 900)
        #expect(try await index.download("tok-1")?.bytesDownloaded == 1_400)
        #expect(try await index.recordProgress([]) == 0)
    }

    @Test("summary counts complete segments, stored bytes and the expected total once known")
    func summary() async throws {
        let index = try await Self.index()
        try await index.insertSegments([
            F.segment(index: 0, expectedLength: 100, bytes: 100, state: .complete),
            F.segment(index: 1, expectedLength: 200, bytes: 50, state: .partial),
            F.segment(index: 2),
        ])
        var summary = try await index.summary(for: "tok-1")
        #expect(summary == DownloadIndex.Summary(
            segmentCount: 3, completedSegments: 1, bytesStored: 150, knownExpectedBytes: 300, segmentsOfUnknownLength: 1))
        #expect(summary.expectedBytes == nil)
        #expect(!summary.isComplete)
        #expect(try await index.download("tok-1")?.bytesDownloaded == 150)

        try await index.markSegmentComplete(token: "tok-1", stream: "video", index: 1, bytes: 200, sha256: nil, etag: nil)
        try await index.markSegmentComplete(token: "tok-1", stream: "video", index: 2, bytes: 300, sha256: nil, etag: nil)
        summary = try await index.summary(for: "tok-1")
        #expect(summary.expectedBytes == 600)
        #expect(summary.bytesStored == 600)
        #expect(summary.isComplete)
        #expect(summary.description == "3/3 segments, 600/600 bytes")

        let missing = await #expect(throws: IndexError.self) { try await index.summary(for: "ghost") }
        #expect(missing == .notFound("the download ghost"))
        try await index.insert(F.download("empty"))
        #expect(try await index.summary(for: "empty").isComplete == false)
    }

    @Test("saveSegments writes reconciled records back, and refuses unknown ones")
    func saveSegments() async throws {
        let index = try await Self.index()
        try await index.insertSegments([F.segment(index: 0, bytes: 10, state: .partial), F.segment(index: 1, bytes: 5, state: .complete)])
        var reconciled = try await index.segments(for: "tok-1")
        reconciled[0].bytes = 64
        reconciled[1].bytes = 0
        reconciled[1].state = .pending
        try await index.saveSegments(reconciled)
        #expect(try await index.segments(for: "tok-1") == reconciled)
        #expect(try await index.download("tok-1")?.bytesDownloaded == 64)

        var changed = reconciled[0]
        changed.bytes = 99
        let error = await #expect(throws: IndexError.self) {
            try await index.saveSegments([changed, F.segment(index: 9)])
        }
        guard case .notFound = error else { Issue.record("expected .notFound, got \(String(describing: error))"); return }
        #expect(try await index.segments(for: "tok-1") == reconciled)
    }
}
