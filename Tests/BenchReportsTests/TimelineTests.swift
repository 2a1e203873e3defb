@testable import BenchReports
import Foundation
import BenchCore
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

    @Test func profileScenarioAndOriginFaultsAreToldApart() throws {
        let entries = [
            TraceEntry(t: ns(1), .harness(.interfaceSet(.cellular, up: false, mode: .refuse))),
            TraceEntry(t: ns(2), .harness(.interfaceSet(.wifi, up: true, mode: nil))),
            TraceEntry(t: ns(2.001), .conditioner(.interfaceUp(interface: .wifi))),
            // The profile's drop 1 plays on WiFi, and is held off for cellular.
            TraceEntry(t: ns(4), .conditioner(.interfaceDown(interface: .wifi, mode: .reset))),
            TraceEntry(t: ns(4), .conditioner(.profileStateHeld(interface: .cellular, state: .down(.blackhole), phase: 0))),
            TraceEntry(t: ns(4.0001), .conditioner(.phaseApplied(index: 0, label: "drop 1", at: 3))),
            // The scenario brings WiFi up over the profile's outage.
            TraceEntry(t: ns(5), .harness(.interfaceSet(.wifi, up: true, mode: nil))),
            TraceEntry(t: ns(5.001), .conditioner(.profileStateOverridden(interface: .wifi, state: .down(.reset)))),
            TraceEntry(t: ns(5.001), .conditioner(.interfaceUp(interface: .wifi))),
            TraceEntry(t: ns(6), .conditioner(.linkChanged(interface: .wifi, summary: "loss 5%"))),
            TraceEntry(t: ns(6), .conditioner(.phaseApplied(index: 1, label: nil, at: 5))),
            TraceEntry(t: ns(7), .harness(.originFaultBegan(
                index: 0, label: "portal", path: "/**", fault: "captive portal", rule: "profile-origin-0"))),
            TraceEntry(t: ns(8), .harness(.originFaultEnded(index: 0, label: "portal", rule: "profile-origin-0"))),
            TraceEntry(t: ns(9), .harness(.originFaultBegan(index: 1, label: nil, path: "/**", fault: "stall", rule: "profile-origin-1"))),
        ]
        let timeline = Timeline(entries: entries, start: ns(1), end: ns(10))
        #expect(timeline.profileChanges.map(\.kind) == [.profileHeld, .profile])
        #expect(timeline.profileChanges[0].text
            == "profile drop 1 (at 3 s): wifi down(reset), cellular down(blackhole) held off: the scenario holds it down")
        #expect(timeline.profileChanges[1].text == "profile phase 1 (at 5 s): wifi link loss 5%")
        #expect(timeline.scenarioSteps.map(\.t) == [ns(1), ns(2), ns(5)])
        #expect(timeline.scenarioSteps[2].text == "scenario: wifi up (over the profile's down(reset))")
        #expect(timeline.originFaults == [
            Timeline.FaultWindow(start: ns(7), end: ns(8), text: "origin fault portal: captive portal"),
            Timeline.FaultWindow(start: ns(9), end: ns(10), text: "origin fault stall"),
        ])
        // The interface lanes are not told the held state: cellular stays as the scenario set it.
        let cellular = try #require(timeline.interfaces.first { $0.name == "cellular" })
        #expect(cellular.spans.map(\.state) == ["down(refuse)"])
        let svg = TimelineSVG(timeline)
        #expect(Array(svg.rows.map(\.lane).prefix(3)) == ["network:profile", "network:scenario", "network:origin-faults"])
        #expect(svg.rows[0].rects.map(\.cssClass) == ["nw-profile-held", "nw-profile"])
        #expect(svg.rows[1].rects.allSatisfy { $0.cssClass == "nw-scenario" })
        #expect(svg.rows[2].rects.map(\.cssClass) == ["nw-origin-fault", "nw-origin-fault"])
    }

    /// Kills, launches and failures close together (crash-recovery's end): no two words
    /// share a row where they would overlap, and none runs past the plot.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func markerWordsNeverOverlap(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let kinds = Timeline.Marker.Kind.allCases
        var timeline = Timeline(entries: [], start: 0, end: ns(60))
        timeline.markers = (0..<Int.random(in: 4...14, using: &random)).map { _ in
            Timeline.Marker(t: UInt64.random(in: 0...ns(60), using: &random), kind: kinds.randomElement(using: &random)!, text: "")
        }.sorted { $0.t < $1.t }
        timeline.failures = (0..<Int.random(in: 0...4, using: &random)).map { index in
            Timeline.FailureMark(t: UInt64.random(in: ns(50)...ns(60), using: &random), property: "property-\(index)", text: "",
                                 anchor: "f\(index)")
        }
        let x = { (t: UInt64) in TimelineSVG.plotLeft + Double(t) / Double(ns(60)) * TimelineSVG.plotWidth }
        let layout = TimelineSVG.labelRows(timeline, x: x)
        let words = timeline.markers.map(\.kind.rawValue) + timeline.failures.map(TimelineSVG.failureLabel)
        let places = layout.agent + layout.failures
        let boxes = zip(words, places).map { word, place in
            let width = Double(word.count) * TimelineSVG.labelCharWidth
            return (row: place.row, from: place.anchor == "start" ? place.x : place.x - width,
                    to: place.anchor == "start" ? place.x + width : place.x)
        }
        for (i, a) in boxes.enumerated() {
            #expect(a.to <= TimelineSVG.plotLeft + TimelineSVG.plotWidth + 10 && a.from >= 0)
            #expect(a.row < layout.rows)
            for b in boxes[(i + 1)...] where a.row == b.row {
                #expect(a.to <= b.from || b.to <= a.from, "\(a) and \(b) overlap")
            }
        }
        // The SVG leaves room above the lanes for every row.
        let svg = TimelineSVG(timeline)
        #expect(svg.markers.allSatisfy { Double($0.labelY)! <= Double($0.y1)! + 9 })
    }
}
