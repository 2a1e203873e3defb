import BenchReports
import Foundation
import BenchResults
import BenchVocabulary
import Testing

@Suite final class TraceFileTests: Sendable {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("deadzone-trace-\(UUID())")

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func file(_ text: String) throws -> URL {
        let url = directory.appendingPathComponent("trace.jsonl")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test func everyKindOfEntryRoundTrips() throws {
        let entries = SampleRun.trace()
        // The sample touches every source.
        let sources = Set(entries.map { entry -> String in
            switch entry.event {
            case .conditioner: "conditioner"
            case .origin: "origin"
            case .license: "license"
            case .agent: "agent"
            case .harness: "harness"
            }
        })
        #expect(sources.count == 5)
        let url = directory.appendingPathComponent("trace.jsonl")
        try TraceFile.write(entries, to: url)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.split(separator: "\n").count == entries.count)
        #expect(text.hasSuffix("\n"))
        #expect(try TraceFile.read(from: url) == entries)
    }

    @Test func aLongTraceIsReadAcrossChunks() throws {
        // ~200 KB: several of the reader's 64 KiB chunks, lines straddling their edges.
        let entries = (0..<2000).map { TraceEntry(t: UInt64($0), .harness(.note(String(repeating: "x", count: $0 % 150)))) }
        let url = directory.appendingPathComponent("long.jsonl")
        try TraceFile.write(entries, to: url)
        #expect(try TraceFile.read(from: url) == entries)
    }

    @Test func blankLinesAndAMissingFinalNewlineAreFine() throws {
        let line = String(decoding: try TraceFile.line(for: TraceEntry(t: 5, .harness(.note("a")))), as: UTF8.self)
        let url = try file("\n\(line)\r\n\n   \n\(line)")
        #expect(try TraceFile.read(from: url).map(\.t) == [5, 5])
    }

    @Test func aMalformedLineIsNamedByItsNumber() throws {
        let good = String(decoding: try TraceFile.line(for: TraceEntry(t: 1, .harness(.note("ok")))), as: UTF8.self)
        let url = try file("\(good)\n\(good)\n{\"t\": 3, \"source\": \"harness\", \"event\": {\"type\": \"nope\"}}\n\(good)\n")
        let reader = try TraceFileReader(url: url)
        #expect(try reader.next() != nil)
        #expect(try reader.next() != nil)
        #expect {
            try reader.next()
        } throws: { error in
            guard case let .malformedLine(path, line, _) = error as? TraceFileError else { return false }
            return path == url.path && line == 3 && "\(error)".contains("trace.jsonl:3")
        }
    }

    @Test func truncatedJSONOnTheLastLineIsMalformed() throws {
        let good = String(decoding: try TraceFile.line(for: TraceEntry(t: 1, .harness(.note("ok")))), as: UTF8.self)
        let url = try file("\(good)\n\(good.dropLast(4))")
        #expect(throws: TraceFileError.self) { try TraceFile.read(from: url) }
        do { _ = try TraceFile.read(from: url) } catch {
            guard case let .malformedLine(_, line, _) = error else { Issue.record("got \(error)"); return }
            #expect(line == 2)
        }
    }

    @Test func anAbsurdLineIsRefusedWithoutReadingItAll() throws {
        let url = try file("{\"t\": 1, \"x\": \"" + String(repeating: "a", count: 300_000) + "\"}\n")
        #expect(throws: TraceFileError.lineTooLong(path: url.path, line: 1, limit: 100_000)) {
            try TraceFile.read(from: url, maxLineBytes: 100_000)
        }
    }

    @Test func writingIntoAMissingDirectoryIsUnwritable() {
        let url = directory.appendingPathComponent("no/such/dir/trace.jsonl")
        #expect(throws: TraceFileError.unwritable(path: url.path, reason: "cannot create the file")) {
            try TraceFile.write([], to: url)
        }
    }
}
