import BenchCore
import BenchReports
import BenchResults
import BenchVocabulary
import Foundation
import Testing

/// The comparison's report family: report.json, report.html, junit.xml.
@Suite struct ComparisonReportTests {
    static let second: UInt64 = 1_000_000_000

    static func result(_ client: String, _ mode: FaultMode, _ outcome: ClientOutcome, start: UInt64, status: Int32?) -> ClientRunResult {
        let ran = outcome != .notRun
        return ClientRunResult(
            client: client, mode: mode, outcome: outcome, command: "\(client) 'http://127.0.0.2:1/videos/compare/master.m3u8'",
            attempts: ran ? [ClientAttempt(pid: 42, startNanoseconds: start, endNanoseconds: start + 3 * second, exitStatus: status, killed: nil)] : [],
            exitStatus: status, timedOut: outcome == .hung,
            output: ran ? OutputCheck(method: "bytes", valid: outcome == .ok, outputBytes: 10, detail: outcome == .ok ? "byte-identical" : "missing content: 5 of 10 bytes") : nil,
            metrics: ran ? ClientRunMetrics(
                wallSeconds: 3, bytesByInterface: ["wifi": 12, "cellular": 0], originBytes: 10, wastedBytes: 0, originBytesSentAgain: 0,
                requestsDuringOutages: mode == .resetWindow ? 0 : nil, connectAttemptsDuringOutages: mode == .resetWindow ? 4 : nil,
                bytesFetchedAgain: nil, resumed: nil) : nil,
            startNanoseconds: start, endNanoseconds: start + (ran ? 3 * second : 0), stderrTail: ran ? "warning: <odd> & \"quoted\"" : "",
            error: ran ? nil : "not installed: tool; install with: apt-get install tool")
    }

    static func report() -> ComparisonReport {
        let metadata = RunMetadata(
            profile: "flaky-wifi", profilePath: "Profiles/flaky-wifi.yaml", seed: 3, startedAt: Date(timeIntervalSince1970: 1_800_000_000),
            durationSeconds: 12, versions: ["deadzone": "test"], machine: ["cpus": "2"])
        let good = ClientDefinition(name: "good", command: "good {url} {output}")
        let missing = ClientDefinition(name: "missing", command: "tool {url} {output}", requires: ["tool"])
        return ComparisonReport(
            run: metadata,
            content: ComparisonContentInfo(video: "compare", variant: "1000k", bandwidth: 1_000_000, durationSeconds: 12, segments: 6, bytes: 10, media: "synthetic"),
            links: ["wifi": "up | downlink 4Mbit/s", "cellular": "up, expensive"], settings: FaultSettings(),
            clients: [
                ClientEntry(definition: good, missing: [], notRunReason: nil),
                ClientEntry(definition: missing, missing: ["tool"], notRunReason: "not installed: tool; install with: apt-get install tool"),
            ],
            modes: [ModeEntry(mode: .clean, summary: FaultMode.clean.summary, seed: 3), ModeEntry(mode: .resetWindow, summary: FaultMode.resetWindow.summary, seed: 6)],
            runs: [
                result("good", .clean, .ok, start: 1 * second, status: 0),
                result("good", .resetWindow, .silentDataLoss, start: 5 * second, status: 0),
                result("missing", .clean, .notRun, start: 9 * second, status: nil),
                result("missing", .resetWindow, .notRun, start: 9 * second, status: nil),
            ],
            connectTracing: "strace")
    }

    static func trace() -> [TraceEntry] {
        [
            TraceEntry(t: 1 * second, .harness(.clientLaunched(client: "good", mode: "clean", pid: 42, attempt: 1))),
            TraceEntry(t: 4 * second, .harness(.clientExited(client: "good", pid: 42, status: 0))),
            TraceEntry(t: 5 * second, .harness(.clientLaunched(client: "good", mode: "reset-window", pid: 43, attempt: 1))),
            TraceEntry(t: 6 * second, .harness(.interfaceSet(.wifi, up: false, mode: .reset))),
            TraceEntry(t: 7 * second, .harness(.interfaceSet(.wifi, up: true, mode: nil))),
            TraceEntry(t: 8 * second, .harness(.clientExited(client: "good", pid: 43, status: 0))),
        ]
    }

    @Test func theJSONRoundTripsAndIsToldFromARunReport() throws {
        let report = Self.report()
        let data = try ComparisonJSON.encode(report)
        #expect(try ComparisonJSON.decode(data) == report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["kind"] as? String == "comparison")
        #expect(object["schemaVersion"] as? Int == ComparisonReport.currentSchemaVersion)
        let runReport = try ReportJSON.encode(RunReport(run: report.run, scenarios: []))
        #expect { try ComparisonJSON.decode(runReport) } throws: { "\($0)".contains("not a comparison report") }
    }

    @Test func thePageHasTheTableARunSectionEachAndTimelinesForRunsThatRan() throws {
        let html = try ComparisonHTML.render(Self.report(), trace: Self.trace())
        let root = try ParsedElement.parse(Data(html.utf8))
        let rows = root.elements("tr").filter { $0.attributes["class"] == "client" }
        #expect(rows.map { $0.attributes["data-client"] } == ["good", "missing"])
        let cells = rows[0].elements("td").map { [$0.attributes["data-mode"] ?? "", $0.attributes["data-outcome"] ?? ""] }
        #expect(cells == [["clean", "ok"], ["reset-window", "silent-data-loss"]])
        #expect(rows[1].elements("td").allSatisfy { $0.attributes["data-outcome"] == "not-run" })
        let sections = root.elements("section").filter { $0.attributes["class"] == "run" }
        #expect(sections.count == 4)
        #expect(root.elements("svg").count == 2, "one timeline per run that ran")
        let lanes = root.elements("svg")[1].elements("g").compactMap { $0.attributes["data-lane"] }
        #expect(lanes.contains("interface:wifi"))
        #expect(html.contains("connection attempts during outages"))
        #expect(html.contains("install with: apt-get install tool"))
        #expect(!html.contains("<odd>"), "stderr must be escaped")
        #expect(root.elements("script").isEmpty && root.elements("link").isEmpty, "self-contained: no script, no stylesheet link")
        #expect(root.all.allSatisfy { $0.attributes["src"] == nil && !($0.attributes["href"] ?? "#").hasPrefix("http") })
    }

    @Test func junitHasATestcasePerClientAndModeFailingOnLoss() throws {
        let xml = ComparisonJUnit.render(Self.report())
        let root = try ParsedElement.parse(Data(xml.utf8))
        #expect(root.elements("testsuite").map { $0.attributes["name"] } == ["good", "missing"])
        let cases = root.elements("testcase")
        #expect(cases.map { "\($0.attributes["classname"] ?? "")/\($0.attributes["name"] ?? "")" }
            == ["good/clean", "good/reset-window", "missing/clean", "missing/reset-window"])
        #expect(cases[0].elements("failure").isEmpty)
        #expect(cases[1].elements("failure").first?.attributes["type"] == "silent-data-loss")
        #expect(cases[2].elements("skipped").count == 1)
        #expect(root.attributes["failures"] == "1" && root.attributes["skipped"] == "2" && root.attributes["tests"] == "4")
    }

    @Test func theWriterPutsTheFourFilesInPlace() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory() + "deadzone-compare-report-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try ReportWriter().write(Self.report(), trace: Self.trace(), to: directory)
        for file in [files.reportJSON, files.traceJSONL, files.junitXML, files.reportHTML] {
            #expect(FileManager.default.fileExists(atPath: file.path), "\(file.lastPathComponent) missing")
        }
        #expect(try TraceFile.read(from: files.traceJSONL) == Self.trace())
        #expect(try ComparisonJSON.decode(Data(contentsOf: files.reportJSON)) == Self.report())
    }
}
