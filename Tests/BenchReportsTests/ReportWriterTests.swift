import BenchReports
import Foundation
import BenchResults
import BenchVocabulary
import Testing

@Suite final class ReportWriterTests: Sendable {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("deadzone-reports-\(UUID())")

    deinit {
        try? FileManager.default.removeItem(at: base)
    }

    func names(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test func writesTheFourFilesIntoANewDirectory() throws {
        let directory = base.appendingPathComponent("Reports/run-1")
        let report = SampleRun.report()
        let files = try ReportWriter().write(report, trace: SampleRun.trace(), to: directory)
        // Exactly the four files: no temporary left behind.
        #expect(try names(in: directory) == ["junit.xml", "report.html", "report.json", "trace.jsonl"])
        #expect(try ReportJSON.read(from: files.reportJSON) == report)
        #expect(try TraceFile.read(from: files.traceJSONL) == SampleRun.trace())
        _ = try ParsedElement.parse(Data(contentsOf: files.junitXML))
        _ = try ParsedElement.parse(Data(contentsOf: files.reportHTML))
    }

    @Test func eachLaunchsStderrIsKeptBesideTheReportAndLinkedFromItsScenario() throws {
        let directory = base.appendingPathComponent("Reports/run-stderr")
        var report = SampleRun.report()
        report.scenarios[1].stderr = [
            LaunchLog(launch: 1, bytes: 12, tail: "first <run>\n"),
            LaunchLog(launch: 3, bytes: 70_000, tail: "…the end: fatal error\n"),
        ]
        _ = try ReportWriter().write(report, trace: SampleRun.trace(), to: directory)
        #expect(try names(in: directory.appendingPathComponent("stderr"))
            == ["crash-recovery-launch-1.txt", "crash-recovery-launch-3.txt"])
        let first = try String(contentsOf: directory.appendingPathComponent("stderr/crash-recovery-launch-1.txt"), encoding: .utf8)
        #expect(first == "first <run>\n")
        let third = try String(contentsOf: directory.appendingPathComponent("stderr/crash-recovery-launch-3.txt"), encoding: .utf8)
        #expect(third.hasPrefix("[the first 69976 bytes left out]\n…the end"), "\(third)")
        let html = try String(contentsOf: directory.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains(#"<a href="stderr/crash-recovery-launch-1.txt">launch 1 (12 bytes)</a>"#))
        #expect(html.contains(#"<a href="stderr/crash-recovery-launch-3.txt">launch 3 (70000 bytes, its end kept)</a>"#))
        #expect(try ReportJSON.read(from: directory.appendingPathComponent("report.json")) == report)
    }

    @Test func writingAgainReplacesTheFiles() throws {
        let directory = base.appendingPathComponent("again")
        try ReportWriter().write(SampleRun.report(), trace: SampleRun.trace(), to: directory)
        var report = SampleRun.report()
        report.scenarios.removeLast()
        try ReportWriter().write(report, trace: [], to: directory)
        #expect(try ReportJSON.read(from: directory.appendingPathComponent("report.json")).scenarios.count == 2)
        #expect(try TraceFile.read(from: directory.appendingPathComponent("trace.jsonl")).isEmpty)
        #expect(try names(in: directory).count == 4)
    }

    @Test func aDirectoryThatCannotBeCreatedIsATypedError() throws {
        // A regular file where a directory should be: refused even for root.
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let file = base.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: file)
        let directory = file.appendingPathComponent("run")
        #expect {
            try ReportWriter().write(SampleRun.report(), trace: [], to: directory)
        } throws: { error in
            guard let error = error as? ReportWriterError, case .cannotCreateDirectory = error else { return false }
            return error.path == directory.path && error.description.contains(directory.path)
        }
    }

    @Test func aFileThatCannotBeWrittenKeepsTheOnesBefore() throws {
        // junit.xml is taken by a non-empty directory, so renaming onto it fails: report.json
        // and trace.jsonl, written before, stay; report.html, after, is not attempted.
        let directory = base.appendingPathComponent("blocked")
        let blocker = directory.appendingPathComponent("junit.xml")
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: true)
        try Data().write(to: blocker.appendingPathComponent("keep"))
        #expect {
            try ReportWriter().write(SampleRun.report(), trace: SampleRun.trace(), to: directory)
        } throws: { error in
            guard let error = error as? ReportWriterError, case .cannotWrite = error else { return false }
            return error.path == blocker.path
        }
        #expect(try names(in: directory) == ["junit.xml", "report.json", "trace.jsonl"])
        #expect(try ReportJSON.read(from: directory.appendingPathComponent("report.json")) == SampleRun.report())
    }
}
