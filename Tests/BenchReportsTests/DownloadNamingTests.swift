import BenchReports
import BenchResults
import Foundation
import Testing

/// Sentences for people: a download named as the timeline's lanes name it, a scenario and
/// its property said once when they share a name, and the obligation a violation broke;
/// in the console, the HTML and JUnit alike, while report.json keeps the tokens whole.
@Suite struct DownloadNamingTests {
    static let token = "2926520a-2390-41d6-bc28-41edf89f0edd"

    static func report() -> RunReport {
        var report = SampleRun.report()
        var scenario = report.scenarios[0]
        scenario.name = "auto-suspend-on-disconnect"
        scenario.downloads = [DownloadName(token: token, video: "clear"), DownloadName(token: "2926520a", video: "large")]
        scenario.verdicts = [Verdict(
            property: "auto-suspend-on-disconnect", outcome: .failed,
            summary: "1 violation; first: download \(token) downloading → failed",
            evidence: [Evidence(t: 2_000_000_000, "download \(token) downloading → failed", obligation: "fail-only-for-cause")])]
        scenario.preconditions = [PreconditionResult(name: "a pause", met: false, detail: "download \(token) was never paused")]
        report.scenarios = [scenario]
        return report
    }

    @Test func aTokenBecomesItsVideoAndItsFirstCharactersLongestFirst() {
        let names = DownloadNames([DownloadName(token: "abc", video: "short"), DownloadName(token: Self.token, video: "clear")])
        #expect(names.named("download \(Self.token) downloading") == "download clear · 2926520a downloading")
        #expect(names.named("download abc, then abc") == "download short · abc, then short · abc")
        let both = DownloadNames([DownloadName(token: "2926520a", video: "large"), DownloadName(token: Self.token, video: "clear")])
        #expect(both.named("\(Self.token) and 2926520a") == "clear · 2926520a and large · 2926520a", "one pass, longest first")
        #expect(DownloadName(token: "ab", video: "v").label == "v · ab")
        let named = Self.report().namingDownloads.scenarios[0]
        #expect(named.verdicts[0].summary == "1 violation; first: download clear · 2926520a downloading → failed")
        #expect(named.verdicts[0].evidence[0].text == "download clear · 2926520a downloading → failed")
        #expect(named.preconditions[0].detail == "download clear · 2926520a was never paused")
    }

    @Test func theConsoleSaysTheScenariosOwnPropertyOnce() {
        let line = Self.report().scenarios[0].outcomeLine
        #expect(line.hasPrefix("FAIL  its own property: 1 violation; first: download clear · 2926520a downloading → failed"),
                "\(line)")
        #expect(!line.contains(Self.token))
    }

    @Test func thePageAndJUnitNameTheDownloadAndTheObligation() throws {
        let html = try HTMLReport.render(Self.report(), trace: [])
        #expect(html.contains("download clear · 2926520a downloading → failed"))
        #expect(!html.contains(Self.token))
        #expect(html.contains("[broke: fail-only-for-cause]"))
        #expect(html.contains("<strong>auto-suspend-on-disconnect</strong></a>:"), "the scenario and its property said once")
        #expect(!html.contains("<strong>auto-suspend-on-disconnect</strong> × <strong>auto-suspend-on-disconnect</strong>"))
        let junit = JUnitReport.render(Self.report())
        #expect(junit.contains("download clear · 2926520a downloading → failed  [broke: fail-only-for-cause]"))
        #expect(!junit.contains(Self.token))
    }

    @Test func reportJSONKeepsTheTokensAndTheDownloads() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(Self.report())
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(Self.token))
        #expect(text.contains(#""obligation":"fail-only-for-cause""#))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let back = try decoder.decode(RunReport.self, from: data)
        #expect(back.scenarios[0].downloads == Self.report().scenarios[0].downloads)
        #expect(back.scenarios[0].verdicts[0].evidence[0].obligation == "fail-only-for-cause")
    }
}
