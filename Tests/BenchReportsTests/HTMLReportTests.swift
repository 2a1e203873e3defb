import BenchReports
import Foundation
import BenchResults
import BenchVocabulary
import Testing

@Suite struct HTMLReportTests {
    let html: String
    let root: ParsedElement

    init() throws {
        let report = SampleRun.report()
        var baseline = Baseline().updated(from: report)
        baseline.scenarios["crash-recovery"]?["bytes_refetched_after_crash"]?.value = 0
        html = try HTMLReport.render(report, trace: SampleRun.trace(), comparison: GateComparison(report: report, baseline: baseline))
        root = try ParsedElement.parse(Data(html.utf8))
    }

    /// The `data-lane` names of the timeline of scenario `index` (0-based).
    func lanes(_ index: Int) -> [String] {
        root.elements("svg")[index].elements("g").compactMap { $0.attributes["data-lane"] }
    }

    @Test func theVerdictTableHasARowPerVerdict() {
        let rows = root.elements("tr").filter { $0.attributes["class"]?.hasPrefix("verdict ") == true }
        #expect(rows.count == 6)
        let cells = rows.map { row in row.elements("td").prefix(3).map(\.allText) }
        #expect(cells.contains(["crash-recovery", "recovery-after-crash", "failed"]))
        #expect(cells.contains(["auto-suspend", "no-cellular-unless-allowed", "not applicable"]))
        #expect(rows.filter { $0.attributes["class"] == "verdict fail" }.count == 1)
    }

    @Test func oneTimelinePerScenario() {
        #expect(root.elements("svg").count == 3)
    }

    @Test func aLaneForEveryInterfaceAndDownloadSeen() {
        let first = lanes(0)
        for lane in ["interface:wifi", "interface:cellular", "interface:\(SampleRun.hostileInterface)", "throughput:wifi",
                     "throughput:cellular", "lifecycle", "download:dl-1", "download:\(SampleRun.hostileDownload)"] {
            #expect(first.contains(lane), "missing \(lane) in \(first)")
        }
        // The second scenario names only dl-2; the interfaces stay.
        let second = lanes(1)
        #expect(second.filter { $0.hasPrefix("download:") } == ["download:dl-2"])
        #expect(second.contains("interface:wifi") && second.contains("interface:cellular"))
    }

    @Test func theOutageAndTheStatesAreDrawn() throws {
        let svg = root.elements("svg")[0]
        let wifi = try #require(svg.elements("g").first { $0.attributes["data-lane"] == "interface:wifi" })
        let classes = wifi.elements("rect").compactMap { $0.attributes["class"] }
        #expect(classes == ["if-up", "if-down-reset", "if-up"])
        // A span's hover: what and when, then the trace line that began it (none for the
        // span the window began in).
        let titles = wifi.elements("rect").compactMap { $0.elements("title").first?.allText }
        #expect(titles.map { $0.split(separator: "\n").first.map(String.init) } == ["wifi up 1–4 s", "wifi down(reset) 4–7 s", "wifi up 7–11 s"])
        #expect(titles[1].hasSuffix(#"{"event":{"interface":"wifi","mode":"reset","type":"interfaceSet","up":false},"source":"harness","t":4000000000}"#))
        #expect(titles[2].contains(#""type":"interfaceUp""#) && titles[2].contains(#""t":7000000000"#))
        let download = try #require(svg.elements("g").first { $0.attributes["data-lane"] == "download:dl-1" })
        #expect(download.elements("rect").compactMap { $0.attributes["class"] }
            == ["st-requested", "st-downloading", "st-suspended-network", "st-downloading", "st-downloaded"])
        let bars = try #require(svg.elements("g").first { $0.attributes["data-lane"] == "throughput:wifi" })
        #expect(!bars.elements("rect").isEmpty)
    }

    @Test func killsLaunchesAndTheFailureAreMarked() {
        let markers = root.elements("svg")[1].elements("line").filter { $0.attributes["class"]?.hasPrefix("mk-") == true }
        #expect(markers.map { $0.attributes["class"] } == ["mk-killed", "mk-launched", "mk-failed"])
        #expect(markers.first?.allText.hasPrefix("16 s agent 42 killed: crash at 50% <&>\n{") == true)
        // The failed property is marked where its evidence begins, under the id the grid links to.
        let failure = markers.last
        #expect(failure?.attributes["id"] == "failure-2-recovery-after-crash")
        #expect(failure?.attributes["x1"] == markers.first?.attributes["x1"], "the first evidence is the kill, at 16 s")
        #expect(failure?.allText.hasPrefix("16 s recovery-after-crash failed: Segment <seg3>") == true)
    }

    /// Download lanes say which video they download, then the token's start.
    @Test func downloadLanesNameTheirVideo() throws {
        let lane = try #require(root.elements("svg")[0].elements("g").first { $0.attributes["data-lane"] == "download:dl-1" })
        #expect(lane.attributes["data-video"] == "v1")
        let label = try #require(lane.elements("text").first { $0.attributes["class"] == "lane-label" })
        #expect(label.allText.hasPrefix("v1 · dl-1"))
        #expect(label.elements("title").first?.allText == "v1 (dl-1)")
        // A download the window shows no request for keeps its token alone.
        let hostile = try #require(root.elements("svg")[0].elements("g").first {
            $0.attributes["data-lane"] == "download:" + SampleRun.hostileDownload
        })
        #expect(hostile.attributes["data-video"] == nil)
    }

    @Test func metricsShowTheBaselineAndTheRegression() throws {
        let rows = root.elements("tr").filter { $0.attributes["class"]?.hasPrefix("metric ") == true }
        let refetched = try #require(rows.first { $0.elements("td").first?.allText == "bytes_refetched_after_crash" })
        #expect(refetched.attributes["class"] == "metric fail")
        #expect(refetched.elements("td").map(\.allText) == ["bytes_refetched_after_crash", "0", "+65536", "200000", "+200000", "✗ regression"])
        #expect(root.elements("p").contains { $0.attributes["class"] == "gate fail" })
    }

    @Test func nothingIsFetchedAndNoScriptRuns() {
        #expect(!html.contains("http://") && !html.contains("https://"))
        #expect(root.elements("script").isEmpty && root.elements("link").isEmpty && root.elements("img").isEmpty)
        #expect(root.all.allSatisfy { $0.attributes["src"] == nil })
        // The only links are to places on the page, each of which exists.
        let ids = Set(root.all.compactMap { $0.attributes["id"] })
        let links = root.all.compactMap { $0.attributes["href"] }
        #expect(!links.isEmpty)
        for link in links { #expect(link.hasPrefix("#") && ids.contains(String(link.dropFirst())), "\(link)") }
        #expect(root.elements("style").count == 1)
    }

    @Test func hostileTextIsEscapedAndKept() {
        // Markup from the trace stays text: no element came out of it, and the text reads as it was.
        #expect(!html.contains("<script") && !html.contains("<seg3>") && !html.contains("<pid 42>"))
        #expect(root.elements("title").contains { $0.allText.hasPrefix(SampleRun.hostileDownload + " downloading") })
        let summaries = root.elements("td").map(\.allText)
        #expect(summaries.contains { $0.hasPrefix(SampleRun.hostileText.replacingOccurrences(of: "\u{1}", with: "\u{FFFD}")) })
        #expect(!html.contains("\u{1}"))
    }

    @Test func withoutBaselineTheMetricsAreShownAlone() throws {
        let page = try HTMLReport.render(SampleRun.report(), trace: [])
        let root = try ParsedElement.parse(Data(page.utf8))
        let rows = root.elements("tr").filter { $0.attributes["class"] == "metric na" }
        #expect(rows.count == 6)
        #expect(root.elements("svg").count == 3)
        #expect(page.contains("No baseline: the metrics are shown without comparison."))
        #expect(!root.elements("p").contains { $0.attributes["class"] == "gate-note" })
    }

    /// `bench run` says which baseline the page compares with, or why it has none.
    @Test func theBaselineNoteIsShownUnderTheGateLine() throws {
        let note = "No baseline column: the default baseline Reports/baseline.json was made with profile flaky-wifi, "
            + "this run used subway-commute <&>."
        let page = try HTMLReport.render(SampleRun.report(), trace: [], baselineNote: note)
        let root = try ParsedElement.parse(Data(page.utf8))
        #expect(root.elements("p").filter { $0.attributes["class"] == "gate-note" }.map(\.allText) == [note])
    }

    /// A partial run (`--scenario`) lists the baseline's other scenarios as not run, not as failures.
    @Test func scenariosNotRunAreListedNotFailed() throws {
        let report = SampleRun.report()
        var baseline = Baseline().updated(from: report)
        baseline.scenarios["cellular-policy"] = [:]
        let partial = GateComparison(report: report, baseline: baseline, onlyScenariosRun: true)
        let root = try ParsedElement.parse(Data(try HTMLReport.render(report, trace: [], comparison: partial).utf8))
        let lines = root.elements("p").filter { $0.attributes["class"]?.hasPrefix("gate ") == true }
        #expect(lines.contains { $0.attributes["class"] == "gate na" && $0.allText
            == "Scenario cellular-policy: in the baseline, not run (only the scenarios run are compared)." })
        let full = GateComparison(report: report, baseline: baseline)
        let failing = try ParsedElement.parse(Data(try HTMLReport.render(report, trace: [], comparison: full).utf8))
        #expect(failing.elements("p").contains { $0.attributes["class"] == "gate fail"
            && $0.allText == "Scenario cellular-policy: in the baseline, not in the run." })
    }
}
