import Foundation
import OfflineDownloads
import Testing

@Suite("Store: PackageFiles")
struct StorePackageFilesTests {
    typealias F = StoreFixtures

    @Test("commit turns the .part into the final file, syncs it and leaves no .part behind; again, it finds it committed")
    func commit() async throws {
        try await F.withTemporaryDirectory { dir in
            let files = PackageFiles(directory: dir + "/pkg")
            let segment = F.segment(stream: "audio_fr", index: 3)
            let part = try files.prepare(segment)
            #expect(part == dir + "/pkg/audio_fr/00003.ts.part")
            try Data((0..<200).map { UInt8($0) }).write(to: URL(fileURLWithPath: part))
            #expect(try files.commit(segment) == 200)
            #expect(!F.exists(part))
            #expect(try Data(contentsOf: URL(fileURLWithPath: files.finalPath(for: segment))) == Data((0..<200).map { UInt8($0) }))

            // Committing again (a worker stopped as another started had committed it): the
            // final file is the segment, its size comes back.
            #expect(try files.commit(segment) == 200)
            // With neither a .part nor a final file, the error says so.
            try FileManager.default.removeItem(atPath: files.finalPath(for: segment))
            let error = #expect(throws: PackageFileError.self) { try files.commit(segment) }
            #expect(error == .system(operation: "open", path: part, errno: ENOENT))
            #expect(error?.description.contains("download") == true)
            #expect(error?.isDiskFull == false)
        }
    }

    @Test("segment paths must stay inside the package")
    func pathsStayInside() {
        let files = PackageFiles(directory: "/tmp/never-created")
        var segment = F.segment(index: 0)
        for bad in ["../escape.ts", "/etc/passwd", "video/../../x.ts", ""] {
            segment.localPath = bad
            #expect(throws: PackageFileError.invalidLocalPath(bad)) { try files.prepare(segment) }
            #expect(throws: PackageFileError.invalidLocalPath(bad)) { try files.commit(segment) }
        }
    }

    /// One row of the reconciliation table: a record, the files on disk, the record expected back.
    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var record: SegmentRecord
        var finalSize: Int?
        var partSize: Int?
        var expected: (bytes: Int64, state: SegmentRecord.State)
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(name: "complete, final present", record: F.segment(index: 0, expectedLength: 100, bytes: 100, state: .complete),
            finalSize: 100, partSize: nil, expected: (100, .complete)),
        Row(name: "complete, final missing", record: F.segment(index: 1, expectedLength: 100, bytes: 100, state: .complete),
            finalSize: nil, partSize: nil, expected: (0, .pending)),
        Row(name: "complete, final short", record: F.segment(index: 2, expectedLength: 100, bytes: 100, state: .complete),
            finalSize: 60, partSize: nil, expected: (0, .pending)),
        Row(name: "partial, part longer than recorded", record: F.segment(index: 3, expectedLength: 100, bytes: 40, state: .partial),
            finalSize: nil, partSize: 70, expected: (70, .partial)),
        Row(name: "partial, part shorter than recorded", record: F.segment(index: 4, bytes: 40, state: .partial),
            finalSize: nil, partSize: 25, expected: (25, .partial)),
        Row(name: "partial, part missing", record: F.segment(index: 5, bytes: 40, state: .partial),
            finalSize: nil, partSize: nil, expected: (0, .pending)),
        Row(name: "partial, part longer than the segment", record: F.segment(index: 6, expectedLength: 50, bytes: 40, state: .partial),
            finalSize: nil, partSize: 80, expected: (0, .pending)),
        Row(name: "pending, part written before a crash", record: F.segment(index: 7),
            finalSize: nil, partSize: 33, expected: (33, .partial)),
        Row(name: "pending, nothing on disk", record: F.segment(index: 8),
            finalSize: nil, partSize: nil, expected: (0, .pending)),
        // Renamed into place (so whole and synced), then the process died before the index write.
        Row(name: "partial, final renamed into place", record: F.segment(index: 9, bytes: 40, state: .partial),
            finalSize: 90, partSize: nil, expected: (90, .complete)),
        // The same, with the length the answer announced: the file matches it.
        Row(name: "pending, final of the announced length", record: F.segment(index: 10, expectedLength: 90),
            finalSize: 90, partSize: nil, expected: (90, .complete)),
        // Not the announced length: cut short (or replaced) after the rename; fetched again.
        Row(name: "pending, final shorter than announced", record: F.segment(index: 11, expectedLength: 90, bytes: 20, state: .partial),
            finalSize: 30, partSize: nil, expected: (0, .pending)),
    ]

    @Test("reconcile corrects each record from the disk", arguments: rows)
    func reconcile(_ row: Row) async throws {
        try await F.withTemporaryDirectory { dir in
            let files = PackageFiles(directory: dir)
            var record = row.record
            record.sha256 = row.record.state == .complete ? "ff" : nil
            if let size = row.finalSize { try F.writeFile(files.finalPath(for: record), count: size) }
            if let size = row.partSize { try F.writeFile(files.partPath(for: record), count: size) }
            let reconciled = try #require(files.reconcile(segments: [record]).first)
            #expect(reconciled.bytes == row.expected.bytes)
            #expect(reconciled.state == row.expected.state)
            #expect(reconciled.key == record.key)
            #expect(reconciled.expectedLength == record.expectedLength)
            // A kept complete record keeps its hash; a file found renamed into place is
            // hashed later, by the transfer that records it.
            #expect(reconciled.sha256 == (record.state == .complete && reconciled.state == .complete ? "ff" : nil))
        }
    }

    @Test("reconcile keeps the order and leaves the disk alone")
    func reconcileKeepsOrder() async throws {
        try await F.withTemporaryDirectory { dir in
            let files = PackageFiles(directory: dir)
            let records = [F.segment(index: 2), F.segment(index: 0, bytes: 5, state: .partial), F.segment(index: 1)]
            try F.writeFile(files.partPath(for: records[1]), count: 9)
            #expect(files.reconcile(segments: records).map(\.index) == [2, 0, 1])
            #expect(PackageFilesProbe.size(files.partPath(for: records[1])) == 9)
        }
    }

    @Test("removeAll removes the package and is idempotent; free space is reported")
    func removeAllAndFreeSpace() async throws {
        try await F.withTemporaryDirectory { dir in
            let files = PackageFiles(directory: dir + "/pkg")
            #expect(try files.freeSpace() > 0, "measured on the nearest existing ancestor")
            try F.writeFile(files.finalPath(for: F.segment(index: 0)), count: 10)
            try F.writeFile(files.partPath(for: F.segment(stream: "subs_de", index: 1)), count: 10)
            let free = try files.freeSpace()
            #expect(free > 0)
            try files.removeAll()
            #expect(!F.exists(dir + "/pkg"))
            #expect(F.exists(dir))
            try files.removeAll()
        }
    }
}

/// File sizes, read without the type under test.
enum PackageFilesProbe {
    static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }
}
