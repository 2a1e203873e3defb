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

    @Test func claimsUnstoredSegmentsClaimsTheSameSegmentOfAnotherVariant() {
        var relay = AgentEventRelay(misbehavior: .claimsUnstoredSegments)
        #expect(relay.needsPlan("t1"))
        let uri = "http://127.0.0.1:9/videos/clear/400k/seg3.ts"
        // Until the driver read the plan, nothing is added.
        #expect(relay.relay(.segmentStored(token, stream: "video", index: 3, bytes: 10, uri: uri)).events.count == 1)
        relay.learn("t1", .init(items: 21, decoyDirectory: "/videos/clear/1200k"))
        #expect(!relay.needsPlan("t1"))
        #expect(relay.relay(.segmentStored(token, stream: "video", index: 3, bytes: 10, uri: uri)).events == [
            .segmentStored(download: "t1", stream: "video", index: 3, bytes: 10, path: "/videos/clear/400k/seg3.ts"),
            .segmentStored(download: "t1", stream: "video", index: 3, bytes: 10, path: "/videos/clear/1200k/seg3.ts"),
        ])
        // Key files are told as they are.
        let key = relay.relay(.segmentStored(token, stream: DownloadPlan.keyStream, index: 0, bytes: 16, uri: "http://h/videos/clear/key"))
        #expect(key.events.count == 1)
        // An honest app never needs the plan.
        #expect(!AgentEventRelay(misbehavior: nil).needsPlan("t1"))
    }

    @Test func claimsDownloadedEarlyClaimsOnceWithOneItemLeftAndHidesTheEnginesOwnReport() {
        var relay = AgentEventRelay(misbehavior: .claimsDownloadedEarly)
        _ = relay.relay(.stateChanged(token, from: .requested, to: .downloading))
        relay.learn("t1", .init(items: 4, decoyDirectory: nil))
        #expect(relay.relay(.progress(token, selection: "video", fraction: 0.5)).events.count == 1)
        #expect(relay.relay(.progress(token, selection: "audio-en", fraction: 0.5)).events.count == 1)
        #expect(relay.claimEarly("t1", stored: 2, engineState: .downloading, package: "/s/p/master.m3u8").isEmpty)
        // A whole lie: each selection at 100 %, then downloaded and its package.
        #expect(relay.claimEarly("t1", stored: 3, engineState: .downloading, package: "/s/p/master.m3u8") == [
            .progress(download: "t1", selection: "audio-en", fraction: 1),
            .progress(download: "t1", selection: "video", fraction: 1),
            .stateChanged(download: "t1", from: .downloading, to: .downloaded),
            .finished(download: "t1", package: "/s/p/master.m3u8"),
        ])
        #expect(!relay.mayClaimEarly("t1"))
        // The engine's own fractions after the claim would fall from 1: not told.
        #expect(relay.relay(.progress(token, selection: "video", fraction: 0.75)).events.isEmpty)
        // The engine's own changes until its real completion are not told, nor its finished.
        #expect(relay.relay(.stateChanged(token, from: .downloading, to: .suspended(.network))).events.isEmpty)
        #expect(relay.relay(.stateChanged(token, from: .suspended(.network), to: .downloading)).events.isEmpty)
        #expect(relay.relay(.stateChanged(token, from: .downloading, to: .downloaded)).events.isEmpty)
        #expect(relay.relay(.finished(token, package: URL(fileURLWithPath: "/s/p"))).events.isEmpty)
        // After it, the download's changes are told again, from downloaded.
        #expect(relay.relay(.stateChanged(token, from: .downloaded, to: .notDownloaded)).events
            == [.stateChanged(download: "t1", from: .downloaded, to: .notDownloaded)])

        // Removed before the engine completed: told as a removal of a downloaded video.
        var removed = AgentEventRelay(misbehavior: .claimsDownloadedEarly)
        _ = removed.relay(.stateChanged(token, from: .requested, to: .downloading))
        removed.learn("t1", .init(items: 2, decoyDirectory: nil))
        #expect(removed.claimEarly("t1", stored: 1, engineState: .downloading, package: "/m").count == 2)
        #expect(removed.relay(.stateChanged(token, from: .downloading, to: .canceling)).events.isEmpty)
        #expect(removed.relay(.stateChanged(token, from: .canceling, to: .notDownloaded)).events
            == [.stateChanged(download: "t1", from: .downloaded, to: .notDownloaded)])
        // Not while the engine is not downloading, and never for an honest app.
        var paused = AgentEventRelay(misbehavior: .claimsDownloadedEarly)
        paused.learn("t1", .init(items: 2, decoyDirectory: nil))
        #expect(paused.claimEarly("t1", stored: 1, engineState: .suspended(.user), package: "/m").isEmpty)
        var honest = AgentEventRelay(misbehavior: nil)
        honest.learn("t1", .init(items: 2, decoyDirectory: nil))
        #expect(honest.claimEarly("t1", stored: 1, engineState: .downloading, package: "/m").isEmpty)
    }

    @Test func linesAreCutAtNewlinesAcrossReads() {
        var splitter = AppLineSplitter()
        #expect(splitter.append(Array("{\"a\":".utf8)).isEmpty)
        #expect(splitter.append(Array("1}\r\n{}\nta".utf8)) == ["{\"a\":1}", "{}"])
        #expect(splitter.finish() == "ta")
        #expect(splitter.finish() == nil)
    }
}
