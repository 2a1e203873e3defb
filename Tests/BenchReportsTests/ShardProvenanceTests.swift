import BenchReports
import BenchResults
import Foundation
import Testing

/// A shard's `report.html`, `junit.xml` and `matrix.html` say which shard they are, and a
/// merged one which shards it was joined from (report.json, matrix.json and chaos.json
/// carry the records themselves).
@Suite struct ShardProvenanceTests {
    /// The middle scenario of `SampleRun`'s three, as shard 2 of 2.
    static func shardReport() -> RunReport {
        var report = SampleRun.report()
        let all = report.scenarios.map(\.name)
        report.scenarios = [report.scenarios[1]]
        report.run.shard = ShardRecord(
            index: 2, count: 2, units: [all[1]], allUnits: all, plan: "0123abcd", identity: ["command": "run"])
        return report
    }

    static func mergedReport() -> RunReport {
        var report = SampleRun.report()
        report.run.mergedFrom = [
            MergedShard(index: 1, count: 2, directory: "out/shard-1", units: 2, durationSeconds: 41, hostname: "runner-a"),
            MergedShard(index: 2, count: 2, directory: "out/shard-2", units: 1, durationSeconds: 38.4, hostname: "runner-b"),
        ]
        return report
    }

    @Test func aShardsPageNamesItsPartAndItsRerunPlaysTheWholeWithTheSameSeeds() throws {
        let report = Self.shardReport()
        let root = try ParsedElement.parse(Data(try HTMLReport.render(report, trace: []).utf8))
        let rows = root.elements("tr").map { $0.children.map(\.allText) }
        let shard = try #require(rows.first { $0.first == "shard" })
        #expect(shard.last?.contains("2 of 2: 1 of 3 units (\(report.scenarios[0].name))") == true)
        #expect(shard.last?.contains("plan 0123abcd") == true)
        let rerun = try #require(root.elements("p").first { $0.attributes["class"] == "rerun" }?.allText)
        for name in report.run.shard?.allUnits ?? [] { #expect(rerun.contains("--scenario \(name)")) }
        #expect(rerun.contains("one shard of a run"))
        #expect(!rerun.contains("--shard"))

        let whole = try ParsedElement.parse(Data(try HTMLReport.render(SampleRun.report(), trace: []).utf8))
        #expect(whole.elements("tr").allSatisfy { $0.children.first?.allText != "shard" })
        #expect(whole.elements("p").first { $0.attributes["class"] == "rerun" }?.allText.contains("one shard") == false)
    }

    @Test func aMergedPageListsEveryShardItWasJoinedFrom() throws {
        let root = try ParsedElement.parse(Data(try HTMLReport.render(Self.mergedReport(), trace: []).utf8))
        let rows = Dictionary(root.elements("tr").compactMap { row -> (String, String)? in
            let cells = row.children.map(\.allText)
            return cells.count == 2 ? (cells[0], cells[1]) : nil
        }) { a, _ in a }
        #expect(rows["merged from"] == "2 shards by bench merge; the longest took 41 s")
        #expect(rows["shard 1/2"] == "out/shard-1: 2 units, 41 s, on runner-a")
        #expect(rows["shard 2/2"] == "out/shard-2: 1 unit, 38 s, on runner-b")
    }

    @Test func everyJUnitSuiteOfAShardOrAMergeCarriesItAsProperties() throws {
        for (report, expected) in [
            (Self.shardReport(), ["deadzone.shard"]),
            (Self.mergedReport(), ["deadzone.merged from", "deadzone.shard 1/2", "deadzone.shard 2/2"]),
        ] {
            let root = try ParsedElement.parse(Data(JUnitReport.render(report).utf8))
            let suites = root.elements("testsuite")
            #expect(suites.count == report.scenarios.count)
            for suite in suites {
                #expect(suite.children.first?.name == "properties")
                #expect(suite.elements("property").compactMap { $0.attributes["name"] } == expected)
            }
        }
        let plain = try ParsedElement.parse(Data(JUnitReport.render(SampleRun.report()).utf8))
        #expect(plain.elements("properties").isEmpty)
    }

    @Test func aMatrixSaysWhichShardItIsOrWhichItWasMergedFrom() throws {
        var matrix = MatrixTests.matrix()
        #expect(!MatrixHTML.render(matrix).contains("class=\"shards\""))
        let plainTables = try ParsedElement.parse(Data(MatrixHTML.render(matrix).utf8)).elements("table").count
        matrix.shard = ShardRecord(
            index: 1, count: 4, units: ["deadzone--flaky-wifi/housekeeping"],
            allUnits: ["deadzone--flaky-wifi/housekeeping", "deadzone--flaky-wifi/cellular-policy"], plan: "p",
            identity: [:])
        let page = try ParsedElement.parse(Data(MatrixHTML.render(matrix).utf8))
        let list = try #require(page.elements("ul").first { $0.attributes["class"] == "shards" })
        #expect(list.allText.contains("shard: 1 of 4: 1 of 2 units (deadzone--flaky-wifi/housekeeping)"))
        // The grid stays the page's first table (`.ci/render-report` finds it there).
        #expect(page.elements("table").count == plainTables)
        let junit = try ParsedElement.parse(Data(MatrixJUnit.render(matrix).utf8))
        #expect(junit.elements("testsuite").allSatisfy { $0.children.first?.name == "properties" })
        matrix.shard = nil
        matrix.mergedFrom = [MergedShard(index: 1, count: 1, directory: "s1", units: 2)]
        #expect(MatrixHTML.render(matrix).contains("1 shard by bench merge"))
    }
}
