import AppProtocol
import BenchCore
@testable import EngineAgent
import Foundation
import OfflineDownloads
import Testing

/// The adapter's pure parts: how engine events become the protocol's events (and where
/// fail-on-outage gives up), how paths are disguised, how lines are cut.
struct AgentEventRelayTests {
    let token = DownloadToken("t1")

    @Test func engineEventsBecomeAgentEventsWithOriginPaths() {
        var relay = AgentEventRelay(misbehavior: nil)
        let stored = relay.relay(.segmentStored(
            token, stream: "video", index: 3, bytes: 10, uri: "http://127.0.0.1:9/videos/clear/400k/seg3.ts"))
        #expect(stored.events == [
            .segmentStored(download: "t1", stream: "video", index: 3, bytes: 10, path: "/videos/clear/400k/seg3.ts")
        ])
        let finished = relay.relay(.finished(token, package: URL(fileURLWithPath: "/s/packages/t1")))
        #expect(finished.events == [.finished(download: "t1", package: "/s/packages/t1/master.m3u8")])
        // Key files are no media selection: their progress is not told.
        #expect(relay.relay(.progress(token, selection: DownloadPlan.keyStream, fraction: 1)).events.isEmpty)
        #expect(relay.relay(.progress(token, selection: "video", fraction: 0.5)).events
            == [.progress(download: "t1", selection: "video", fraction: 0.5)])
        #expect(relay.relay(.evicted(token, expiredAt: Date())).events == [.evicted(download: "t1")])
        #expect(relay.relay(.error(nil, message: "m")).events == [.error(download: nil, message: "m")])
        // An honest app tells a network suspension as it is.
        let suspended = relay.relay(.stateChanged(token, from: .downloading, to: .suspended(.network)))
        #expect(suspended == .init(events: [.stateChanged(download: "t1", from: .downloading, to: .suspended(.network))]))
    }

    @Test func failOnOutageGivesUpOnceAndThenSaysNothingOfTheDownload() {
        var relay = AgentEventRelay(misbehavior: .failOnOutage)
        _ = relay.relay(.stateChanged(token, from: .requested, to: .downloading))
        // The outage: reported as a failure from what the app last showed, and paused.
        let outage = relay.relay(.stateChanged(token, from: .downloading, to: .suspended(.network)))
        #expect(outage == .init(events: [.stateChanged(download: "t1", from: .downloading, to: .failed)], pause: token))
        // The pause it caused, and anything later, stay quiet.
        #expect(relay.relay(.stateChanged(token, from: .suspended(.network), to: .suspended(.user))).events.isEmpty)
        #expect(relay.relay(.stateChanged(token, from: .suspended(.user), to: .downloading)).events.isEmpty)
        // Other downloads are not affected until their own outage.
        let other = relay.relay(.stateChanged(DownloadToken("t2"), from: .requested, to: .downloading))
        #expect(other.events.count == 1 && other.pause == nil)
    }

    @Test func ignoreCellularPolicyDisguisesCellularAsWiFiBehindTheRealOne() {
        let wifi = PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "w:1")
        let cellular = PathInterface(kind: .cellular, isExpensive: true, isConstrained: true, endpoint: "c:2")
        let disguised = AgentMisbehavior.ignoreCellularPolicy.pathForEngine(NetworkPath(interfaces: [cellular, wifi]))
        #expect(disguised.interfaces == [
            wifi, PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "c:2"),
        ])
        let honest = AgentMisbehavior.failOnOutage.pathForEngine(NetworkPath(interfaces: [cellular]))
        #expect(honest.interfaces == [cellular])
    }

    @Test func linesAreCutAtNewlinesAcrossReads() {
        var splitter = AppLineSplitter()
        #expect(splitter.append(Array("{\"a\":".utf8)).isEmpty)
        #expect(splitter.append(Array("1}\r\n{}\nta".utf8)) == ["{\"a\":1}", "{}"])
        #expect(splitter.finish() == "ta")
        #expect(splitter.finish() == nil)
    }
}
