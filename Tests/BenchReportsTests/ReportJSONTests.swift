import BenchReports
import Foundation
import BenchResults
import BenchVocabulary
import Testing

@Suite struct ReportJSONTests {
    @Test func aReportRoundTrips() throws {
        let report = SampleRun.report()
        let data = try ReportJSON.encode(report)
        #expect(try ReportJSON.decode(data) == report)
    }

    @Test func theFileIsPrettySortedWithISODates() throws {
        let text = String(decoding: try ReportJSON.encode(SampleRun.report()), as: UTF8.self)
        // Pretty-printed: one key per line, indented.
        #expect(text.contains("\n  \"run\" : {"))
        // Sorted keys: at the top, "run" < "scenarios" < "schemaVersion".
        let run = try #require(text.range(of: "\"run\" :"))
        let scenarios = try #require(text.range(of: "\"scenarios\" :"))
        let version = try #require(text.range(of: "\"schemaVersion\" : 1"))
        #expect(run.lowerBound < scenarios.lowerBound && scenarios.lowerBound < version.lowerBound)
        // 1_760_000_000 s since 1970 as ISO-8601.
        #expect(text.contains("\"startedAt\" : \"2025-10-09T08:53:20Z\""))
    }

    @Test func aNewerSchemaVersionIsRefusedWithWhatToDo() throws {
        var report = SampleRun.report()
        report.schemaVersion = 99
        let data = try ReportJSON.encode(report)
        #expect(throws: ReportJSONError.unsupportedSchemaVersion(path: "r.json", found: 99, supported: 1)) {
            try ReportJSON.decode(data, path: "r.json")
        }
        do {
            _ = try ReportJSON.decode(data, path: "r.json")
        } catch {
            #expect(error.description.contains("version 99"))
            #expect(error.description.contains("update"))
        }
    }

    @Test func somethingElseIsMalformedNotMisread() {
        for text in [#"{"run": {}}"#, "not json", #"{"schemaVersion": 1, "run": 3, "scenarios": []}"#] {
            #expect {
                try ReportJSON.decode(Data(text.utf8))
            } throws: { error in
                guard case .malformed = error as? ReportJSONError else { return false }
                return true
            }
        }
    }

    @Test func readingAMissingFileSaysWhichPath() {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID())/report.json")
        #expect {
            try ReportJSON.read(from: url)
        } throws: { error in
            guard case let .unreadable(path, _) = error as? ReportJSONError else { return false }
            return path == url.path
        }
    }
}
