import BenchCore
import Foundation
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct TraceCodingTests {
    @Test func entriesRoundTripThroughJSONLines() throws {
        let entries = [
            TraceEntry(t: 1, .harness(.scenarioStarted(name: "s", profile: "p", seed: 7))),
            TraceEntry(t: 2, .agent(.stateChanged(download: "d", from: .downloading, to: .suspended(.network)))),
            TraceEntry(t: 3, .harness(.interfaceSet(.wifi, up: false, mode: .reset))),
            TraceEntry(t: 4, .harness(.packageRead(
                download: "d", master: "/p/master.m3u8", cause: .downloaded,
                found: PackageFindings(directory: "/p", playlists: [PlaylistFindings(
                    uri: "video.m3u8", role: "variant", rendition: "/videos/clear/400k/index.m3u8", expected: 2,
                    listed: 2, present: 1, matching: 1, missing: ["/videos/clear/400k/seg1.ts"],
                    keys: [SidecarFinding(uri: "key.bin", origin: "/videos/clear/key", outcome: .matches)])])))),
            TraceEntry(t: 4, .harness(.diskAtKill(
                pid: 42, stored: ["/videos/clear/400k/seg0.ts"], partial: ["/videos/clear/400k/seg1.ts": 400],
                unknown: ["index.sqlite": 8192]))),
        ]
        let encoder = JSONEncoder()
        let lines = try entries.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        #expect(lines.allSatisfy { !$0.contains("\n") })
        let decoded = try lines.map { try JSONDecoder().decode(TraceEntry.self, from: Data($0.utf8)) }
        #expect(decoded == entries)
        // The package read reads as docs/report-schema.md shows it.
        #expect(lines[3].contains(#""type":"packageRead""#) && lines[3].contains(#""cause":"downloaded""#))
        #expect(lines[3].contains(#""outcome":"matches""#) && lines[3].contains(#""missing":["#))
    }

    /// `diskAtKill` as docs/report-schema.md writes it down.
    @Test func aPausedDiskReadHasTheDocumentedFieldsAndRoundTrips() throws {
        let entry = TraceEntry(t: 6, .harness(.diskWhilePaused(download: "d1", stored: ["/a"], partial: ["/b": 400])))
        let data = try JSONEncoder().encode(entry)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let disk = try #require(object["event"] as? [String: Any])
        #expect(disk["type"] as? String == "diskWhilePaused")
        #expect(disk["download"] as? String == "d1")
        #expect(disk["stored"] as? [String] == ["/a"])
        #expect(disk["partial"] as? [String: Int] == ["/b": 400])
        #expect(try JSONDecoder().decode(TraceEntry.self, from: data) == entry)
    }

    @Test func aDiskSnapshotHasTheDocumentedFields() throws {
        let entry = TraceEntry(t: 4, .harness(.diskAtKill(
            pid: 42, stored: ["/a"], partial: ["/b": 400], unknown: ["index.sqlite": 8192])))
        let object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(entry)) as? [String: Any])
        #expect(object["source"] as? String == "harness")
        let disk = try #require(object["event"] as? [String: Any])
        #expect(disk["type"] as? String == "diskAtKill")
        #expect(disk["pid"] as? Int == 42)
        #expect(disk["stored"] as? [String] == ["/a"])
        #expect(disk["partial"] as? [String: Int] == ["/b": 400])
        #expect(disk["unknown"] as? [String: Int] == ["index.sqlite": 8192])
    }
}
