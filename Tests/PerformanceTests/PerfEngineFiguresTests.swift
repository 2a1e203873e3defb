import FixtureOrigin
import Testing
@testable import Performance

/// `bench perf engine`'s figures from known runs: goodput and overhead ratios, the RSS
/// target, and where the bytes beyond the content went.
@Suite struct PerfEngineFiguresTests {
    @Test func goodputIsContentOverWallTimeAgainstTheLink() {
        // 47 MB in 8 s over 50 Mbit/s: 47 Mbit/s, 94% of the link.
        let figures = PerfEngineSections.goodput(run(contentBytes: 47_000_000, wall: 8, downlink: 47_010_000))
        #expect(figures[0].label == "download complete, byte-exact")
        #expect(figures[0].pass == true)
        #expect(figures[1].target == "≥ 90% of link")
        #expect(abs(figures[1].value - 94) < 1e-9)
        #expect(figures[1].display == "94.0% (47.0 Mbit/s)")
        #expect(figures[1].pass == true)
        let slow = PerfEngineSections.goodput(run(contentBytes: 47_000_000, wall: 8.5, downlink: 47_010_000))
        #expect(slow[1].pass == false)  // 88.5%
    }

    /// A run that did not complete byte-exact misses every target of its section, whatever its figures.
    @Test func anIncompleteRunMissesEveryTarget() {
        var broken = run(contentBytes: 47_000_000, wall: 8, downlink: 47_010_000)
        broken.content.problems = ["/videos/clear/3000k/seg3.ts: stored 10 bytes"]
        for figures in [PerfEngineSections.goodput(broken), PerfEngineSections.resets(broken), PerfEngineSections.memory(broken)] {
            #expect(figures[0].display == "NO")
            #expect(figures.filter { $0.pass != nil }.allSatisfy { $0.pass == false })
        }
        var crashed = run(contentBytes: 47_000_000, wall: 8, downlink: 47_010_000)
        crashed.child.exitCode = 1
        #expect(PerfEngineSections.goodput(crashed)[1].pass == false)
    }

    @Test func overheadIsDownlinkBytesOverContentBytes() {
        let fine = PerfEngineSections.resets(run(contentBytes: 40_000_000, wall: 8, downlink: 40_008_000, resetP: 0.25))
        #expect(fine[1].label == "bytes fetched / content bytes")
        #expect(fine[1].display == "1.0002")
        #expect(fine[1].target == "≤ 1.01")
        #expect(fine[1].pass == true)
        let wasteful = PerfEngineSections.resets(run(contentBytes: 40_000_000, wall: 8, downlink: 40_500_000, resetP: 0.25))
        #expect(wasteful[1].pass == false)  // 1.0125
        #expect(PerfEngineSections.ratio(run(contentBytes: 0, wall: 8, downlink: 5_000)) == 0)
    }

    @Test func peakRSSIsJudgedAgainst64MB() {
        var small = run(contentBytes: 40_000_000, wall: 8, downlink: 40_000_000)
        small.child.sampledPeakRSSBytes = 50_000_000
        #expect(PerfEngineSections.memory(small)[1].target == "≤ 64 MB")
        #expect(PerfEngineSections.memory(small)[1].pass == true)
        var large = small
        large.child.sampledPeakRSSBytes = 64_000_001
        #expect(PerfEngineSections.memory(large)[1].pass == false)
        var unknown = small
        unknown.child.sampledPeakRSSBytes = 0
        #expect(PerfEngineSections.memory(unknown)[1].pass == false)
    }

    /// A response cut by a reset keeps what the next request resumed from; the rest of what
    /// the connection carried is waste on a randomly reset connection.
    @Test func wasteSplitsBytesBeyondTheContentByConnection() {
        let requests = [
            record(connection: 1, peer: "127.0.0.1:5001", path: "/seg0.ts", range: nil, sent: 600_000, at: 1),
            record(connection: 2, peer: "127.0.0.1:5002", path: "/seg0.ts", range: "bytes=500000-", sent: 500_000, at: 2),
            record(connection: 2, peer: "127.0.0.1:5002", path: "/seg1.ts", range: nil, sent: 1_000_000, at: 3),
        ]
        let connections = [
            PerfEngineConnection(peer: "127.0.0.1:5001", downlinkBytes: 600_300, ending: "random reset (p per MiB)",
                                 wasReset: true),
            PerfEngineConnection(peer: "127.0.0.1:5002", downlinkBytes: 1_500_600, ending: "closed by peers"),
            PerfEngineConnection(peer: "127.0.0.1:5003", downlinkBytes: 100),
        ]
        let waste = PerfEngineWaste(connections: connections, requests: requests)
        #expect(waste.reset.connections == 1)
        #expect(waste.reset.bytes == 100_300)  // 600,300 − the 500,000 kept
        #expect(waste.clean.connections == 1)
        #expect(waste.clean.bytes == 600)  // HTTP heads
        #expect(waste.discarded.connections == 0)
        #expect(waste.unmatched == 1)
    }

    private func run(contentBytes: Int64, wall: Double, downlink: Int, resetP: Double = 0) -> PerfEngineRun {
        let child = PerfEngineChildResult(exitCode: 0, signal: nil, timedOut: false, wallSeconds: wall, userSeconds: 1,
                                          systemSeconds: 1, maxRSSBytes: 0, sampledPeakRSSBytes: 40_000_000,
                                          parentPeakAtSpawn: 30_000_000, lines: [])
        return PerfEngineRun(
            scenario: PerfEngineScenario(videos: ["clear"], bitrate: 3_000_000, resetProbabilityPerMiB: resetP),
            linkBitsPerSecond: 50e6, child: child,
            content: PerfEngineContent(files: contentBytes > 0 ? 29 : 0, bytes: contentBytes, problems: []),
            downlinkBytes: downlink, uplinkBytes: 20_000, connections: 2, randomResets: 0, resets: 0, requests: [],
            connectionList: [])
    }

    private func record(connection: UInt64, peer: String, path: String, range: String?, sent: Int,
                        at start: UInt64) -> OriginRequestRecord {
        OriginRequestRecord(connectionID: connection, interface: "wifi", proxySource: peer, method: "GET", path: path,
                            range: range, status: range == nil ? 200 : 206, bytesSent: sent, startedAtNanoseconds: start,
                            timeToFirstByteNanoseconds: nil, durationNanoseconds: 1, faultRuleID: nil, completed: true)
    }
}
