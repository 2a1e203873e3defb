@testable import BenchReports
import Foundation
import BenchResults
import BenchVocabulary
import Testing

@Suite struct TimelineTests {
    let ns = SampleRun.ns

    @Test func throughputCountsTheConditionerWhenItHasBytes() throws {
        let timeline = Timeline(entries: SampleRun.trace(), start: ns(1), end: ns(11))
        let wifi = try #require(timeline.interfaces.first { $0.name == "wifi" })
        #expect(wifi.throughputSource == "conditioner")
        // Six reports of 100 kB, none lost; the origin's 500 kB record is not added on top.
        #expect(wifi.bytesPerBucket.reduce(0, +) == 600_000)
        #expect(timeline.bucketNanoseconds == ns(0.2))
        let hostile = try #require(timeline.interfaces.first { $0.name == SampleRun.hostileInterface })
        #expect(hostile.throughputSource == "origin" && hostile.bytesPerBucket.reduce(0, +) == 1000)
    }

    @Test func originBytesAreSpreadOverTheResponse() throws {
        // The entry is stamped at the response's end: 3 s, for a response of 1 s.
        let entries = [TraceEntry(t: ns(3), .origin(SampleRun.origin(interface: "wifi", bytes: 1000, duration: 1)))]
        let timeline = Timeline(entries: entries, start: ns(0), end: ns(10))
        let wifi = try #require(timeline.interfaces.first)
        #expect(wifi.throughputSource == "origin")
        // 10 s in 0.2 s buckets: 2 s..3 s is buckets 10 to 14, 200 bytes each.
        let filled = wifi.bytesPerBucket.enumerated().filter { $0.element > 0 }
        #expect(filled.map(\.offset) == [10, 11, 12, 13, 14])
        #expect(filled.allSatisfy { abs($0.element - 200) < 1e-6 })
    }

    @Test func downloadsShowTheAgentDownWhileKilled() throws {
        let timeline = Timeline(entries: SampleRun.trace(), start: ns(12), end: ns(25))
        #expect(timeline.downloads.map(\.name) == ["dl-2"])
        let spans = try #require(timeline.downloads.first?.spans)
        #expect(spans.map(\.state) == ["downloading", Timeline.agentDown, "downloading", "downloaded"])
        #expect(spans.map(\.start) == [ns(12.6), ns(16), ns(17), ns(20)])
        #expect(timeline.markers.map(\.kind) == [.killed, .launched])
    }

    @Test func statesBeforeTheWindowCarryIntoIt() throws {
        let timeline = Timeline(entries: SampleRun.trace(), start: ns(5), end: ns(6))
        let wifi = try #require(timeline.interfaces.first { $0.name == "wifi" })
        #expect(wifi.spans == [Timeline.Span(start: ns(5), end: ns(6), state: "down(reset)")])
        #expect(timeline.lifecycle == [Timeline.Span(start: ns(5), end: ns(6), state: "foreground")])
        // dl-1 is named in no entry of [5 s, 6 s]: no lane.
        #expect(timeline.downloads.isEmpty)
    }

    @Test func anEmptyWindowStillLaysOut() {
        let svg = TimelineSVG(Timeline(entries: [], start: 7, end: 7))
        #expect(svg.rows.map(\.lane) == ["lifecycle"])
        #expect(Double(svg.height).map { $0 > 0 } == true)
    }
}
