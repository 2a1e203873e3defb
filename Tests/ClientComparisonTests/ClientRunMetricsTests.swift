import FixtureOrigin
import Testing
@testable import ClientComparison

/// The black-box figures, from hand-made origin records.
@Suite struct ClientRunMetricsTests {
    let second: UInt64 = 1_000_000_000
    let epoch: UInt64 = 5_000_000_000

    func record(
        _ path: String, at seconds: Double, bytes: Int, status: Int = 200, range: String? = nil, completed: Bool = true
    ) -> OriginRequestRecord {
        OriginRequestRecord(
            connectionID: 1, interface: "wifi", proxySource: nil, method: "GET", path: path, range: range, status: status,
            bytesSent: bytes, startedAtNanoseconds: epoch + UInt64(seconds * 1e9), timeToFirstByteNanoseconds: 1,
            durationNanoseconds: 1, faultRuleID: nil, completed: completed)
    }

    func facts(_ records: [OriginRequestRecord], outages: [Range<UInt64>] = [], killedAt: UInt64? = nil,
               connects: [UInt64]? = nil) -> ClientRunFacts {
        ClientRunFacts(
            records: records, epoch: epoch, outages: outages, killedAt: killedAt, connectAttempts: connects,
            bytesByInterface: ["wifi": 1], contentBytes: 1, wallSeconds: 3)
    }

    @Test func bytesSentAgainAreEverythingSentMoreThanOnce() {
        let metrics = ClientRunMetrics.measure(facts([
            record("/a.ts", at: 0, bytes: 600),  // cut short
            record("/a.ts", at: 1, bytes: 1000),  // fetched again whole: 600 wasted
            record("/b.ts", at: 2, bytes: 400),  // cut short
            record("/b.ts", at: 3, bytes: 600, status: 206, range: "bytes=400-"),  // resumed: nothing wasted
            record("/c.ts", at: 4, bytes: 300, status: 206, range: "bytes=100-399"),
            record("/c.ts", at: 5, bytes: 300, status: 206, range: "bytes=200-499"),  // 200 overlap
            record("/x", at: 6, bytes: 50, status: 503),  // an error body is waste
        ]))
        #expect(metrics.originBytes == 3250)
        #expect(metrics.originBytesSentAgain == 600 + 200 + 50)
        #expect(metrics.requestsDuringOutages == nil)
        #expect(metrics.connectAttemptsDuringOutages == nil)
        #expect(metrics.bytesFetchedAgain == nil)
        #expect(metrics.resumed == nil)
    }

    @Test func requestsAndConnectAttemptsAreCountedInsideOutagesOnly() {
        let outage = (2 * second)..<(5 * second)
        let metrics = ClientRunMetrics.measure(facts(
            [record("/a.ts", at: 1, bytes: 10), record("/b.ts", at: 2.5, bytes: 10), record("/c.ts", at: 5, bytes: 10)],
            outages: [outage], connects: [1 * second, 2 * second, 3 * second, 4 * second, 6 * second]))
        #expect(metrics.requestsDuringOutages == 1)
        #expect(metrics.connectAttemptsDuringOutages == 3)
        let untraced = ClientRunMetrics.measure(facts([], outages: [outage], connects: nil))
        #expect(untraced.requestsDuringOutages == 0)
        #expect(untraced.connectAttemptsDuringOutages == nil)
    }

    @Test func aRerunThatResumesFetchesLittleAgain() {
        let metrics = ClientRunMetrics.measure(facts([
            record("/s0.ts", at: 0, bytes: 1000), record("/s1.ts", at: 1, bytes: 1000),
            record("/s2.ts", at: 2, bytes: 500, completed: false),
            // killed at 3 s; the rerun fetches the rest of s2 by range, and s3
            record("/s2.ts", at: 4, bytes: 500, status: 206, range: "bytes=500-"), record("/s3.ts", at: 5, bytes: 1000),
        ], killedAt: 3 * second))
        #expect(metrics.bytesFetchedAgain == 0)
        #expect(metrics.resumed == true)
        #expect(metrics.originBytesSentAgain == 0)
    }

    @Test func aRerunThatFetchesTheInterruptedSegmentsAgainStillResumed() {
        let metrics = ClientRunMetrics.measure(facts([
            record("/s0.ts", at: 0, bytes: 1000), record("/s1.ts", at: 1, bytes: 1000),
            // sent whole by the origin, but still in the link's queue at the kill
            record("/s2.ts", at: 2, bytes: 1000),
            // the rerun keeps s0 and s1, and fetches s2 whole again: 1000 bytes again, but it resumed
            record("/s2.ts", at: 4, bytes: 1000), record("/s3.ts", at: 5, bytes: 1000),
        ], killedAt: 3 * second))
        #expect(metrics.bytesFetchedAgain == 1000)
        #expect(metrics.resumed == true)
    }

    @Test func aRerunThatStartsOverFetchesEverythingAgain() {
        let metrics = ClientRunMetrics.measure(facts([
            record("/s0.ts", at: 0, bytes: 1000), record("/s1.ts", at: 1, bytes: 1000),
            record("/s2.ts", at: 2, bytes: 500, completed: false),
            record("/s0.ts", at: 4, bytes: 1000), record("/s1.ts", at: 5, bytes: 1000), record("/s2.ts", at: 6, bytes: 1000),
        ], killedAt: 3 * second))
        #expect(metrics.bytesFetchedAgain == 2500)
        #expect(metrics.resumed == false)
        #expect(metrics.originBytesSentAgain == 2500)
    }

    @Test func aKillBeforeTwoWholeSegmentsSaysNothingAboutResuming() {
        let metrics = ClientRunMetrics.measure(facts(
            [record("/v/master.m3u8", at: 0, bytes: 100), record("/s0.ts", at: 1, bytes: 1000), record("/s1.ts", at: 2, bytes: 10, completed: false),
             record("/v/master.m3u8", at: 4, bytes: 100), record("/s1.ts", at: 4, bytes: 1000)], killedAt: 3 * second))
        #expect(metrics.bytesFetchedAgain == 110)
        #expect(metrics.resumed == nil)
    }

    @Test func wastedBytesAreWhatTheClientReceivedBeyondOneCopy() {
        func wasted(received: [String: Int]) -> Int {
            ClientRunMetrics.measure(ClientRunFacts(
                records: [], epoch: epoch, outages: [], killedAt: nil, connectAttempts: nil, bytesByInterface: received,
                contentBytes: 1000, wallSeconds: 1)).wastedBytes
        }
        #expect(wasted(received: ["wifi": 1300, "cellular": 200]) == 500)
        #expect(wasted(received: ["wifi": 400]) == 0, "a client that got less than the content wasted nothing")
    }
}
