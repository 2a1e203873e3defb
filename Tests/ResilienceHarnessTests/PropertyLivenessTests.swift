import BenchCore
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertyLivenessTests {
    let id = "liveness"
    /// 2 s stall timeout + 8 s backoff: a 10 s bound keeps the traces short.
    let context = PropertyContext(stallTimeout: .seconds(2), backoffBound: .seconds(8))

    /// d1 (WiFi only) is requested at 1 s with WiFi up; segments arrive every 2 s until
    /// `lastSegment`, WiFi drops from 10 s to 14 s (reset), and the download is reported
    /// done at `doneAt` (nil: it never is; the trace then ends at `end`).
    func download(lastSegment: Double, doneAt: Double?, end: Double = 60) -> TraceBuilder {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.launch(after: .clean, at: 0.5)
        b.request("d1", video: "clear", at: 1)
        b.state("d1", .downloading, at: 1.1)
        var t = 2.0
        while t <= lastSegment {
            if !(10...14).contains(t) { b.origin("/videos/clear/400k/seg\(Int(t)).ts", bytes: 1000, at: t, duration: 0.5) }
            t += 2
        }
        b.interface(.wifi, up: false, mode: .reset, at: 10)
        b.state("d1", .suspended(.network), at: 10.2)
        b.interface(.wifi, up: true, at: 14)
        b.state("d1", .downloading, at: 14.1)
        if let doneAt { b.state("d1", .downloaded, at: doneAt) } else { b.note("end", at: end) }
        return b
    }

    @Test func bytesAtLeastOncePerBoundPass() {
        let verdict = evaluate(id, download(lastSegment: 30, doneAt: 30.1), context)
        #expect(verdict.outcome == .passed, "\(verdict)")
        #expect(verdict.summary.contains("bound 10.000 s = stall timeout 2.000 s + backoff bound 8.000 s"), "\(verdict.summary)")
        // The outage (10–14 s) is no silence the app owes: WiFi was down. The longest is
        // from the end of the last request before it to the outage.
        #expect(verdict.summary.contains("longest silence 2.000 s from 8.000 s"), "\(verdict.summary)")
    }

    @Test func aDownloadStuckAfterTheNetworkReturnsFails() {
        // Bytes stop at 8 s; the app keeps claiming `downloading` after WiFi returns at 14 s.
        let verdict = evaluate(id, download(lastSegment: 8, doneAt: nil, end: 40), context)
        #expect(verdict.outcome == .failed, "\(verdict)")
        expectEvidence(verdict, at: 14, contains: "no bytes reached the app from 14.000 s to 40.000 s (until the trace ended), 26.000 s")
        expectEvidence(verdict, at: 14, contains: "d1 suspended(network) since 10.200 s, then downloading at 14.100 s")
        // The same trace within a longer bound passes: the bound is what decides.
        #expect(evaluate(id, download(lastSegment: 8, doneAt: nil, end: 40),
                         PropertyContext(stallTimeout: .seconds(2), backoffBound: .seconds(30))).outcome == .passed)
    }

    @Test func aSilenceBeforeTheOutageCountsToo() {
        // Nothing from 8.5 s: the silence runs into the outage (10 s) and is 1.5 s; after
        // it, from 14 s, nothing until the trace ends at 30 s: 16 s.
        let verdict = evaluate(id, download(lastSegment: 8, doneAt: nil, end: 30), context)
        #expect(verdict.outcome == .failed)
        #expect(verdict.evidence.count == 1, "\(verdict.evidence)")
    }

    @Test func pausedKilledAndBackgroundedProtectedDownloadsOweNothing() {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.launch(after: .clean, at: 0)
        b.request("p1", video: "protected", at: 1, protected: true)
        b.origin("/videos/protected/400k/seg0.ts", bytes: 1000, at: 2, duration: 1)
        b.userAction("pause", "p1", at: 3)
        b.userAction("resume", "p1", at: 30)          // paused 3–30 s: no obligation
        b.origin("/videos/protected/400k/seg1.ts", bytes: 1000, at: 32, duration: 1)
        b.kill(at: 33)
        b.launch(after: .crash, at: 60)               // not running 33–60 s
        b.origin("/videos/protected/400k/seg2.ts", bytes: 1000, at: 62, duration: 1)
        b.lifecycle(foreground: false, at: 63)
        b.lifecycle(foreground: true, at: 90)         // protected in the background 63–90 s
        b.origin("/videos/protected/400k/seg3.ts", bytes: 1000, at: 92, duration: 1)
        b.state("p1", .downloaded, at: 93)
        let verdict = evaluate(id, b, context)
        #expect(verdict.outcome == .passed, "\(verdict)")

        // The same background with a clear download is a silence the app owes.
        var clear = b
        clear.request("c1", video: "clear", at: 62)
        clear.origin("/videos/clear/400k/seg0.ts", bytes: 1000, at: 62.5, duration: 0.5)
        clear.state("c1", .downloaded, at: 95)
        let judged = evaluate(id, clear, context)
        #expect(judged.outcome == .failed)
        // From the end of c1's first request to p1's next one (p1's bytes count for the app).
        expectEvidence(judged, at: 62.5, contains: "from 62.500 s to 91.000 s")
        expectEvidence(judged, at: 62.5, contains: "c1 requested since 62.000 s")
    }

    @Test func anInterfaceThatDeliversNothingIsNotReachable() {
        // WiFi up but losing everything from 0 s on (Apple's 100% Loss): nothing is owed.
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.launch(after: .clean, at: 0)
        b.request("d1", video: "clear", at: 1)
        b.note("end", at: 60)
        let dead = InterfaceLink(downlink: LinkDirectionParameters(loss: .bernoulli(probability: 1)))
        var bounded = context
        bounded.unreachable = LinkReachability.from(initial: [.wifi: dead], start: 0, phases: [], end: ns(60))
        #expect(evaluate(id, b, bounded).outcome == .notApplicable)
        #expect(evaluate(id, b, context).outcome == .failed)
    }

    @Test func requestsThatBypassTheConditionerOrSendNothingAreNoProgress() {
        var b = download(lastSegment: 8, doneAt: nil, end: 40)
        b.origin("/videos/clear/400k/seg9.ts", bytes: 1000, interface: nil, at: 20)   // straight to the origin
        b.origin("/videos/clear/400k/seg9.ts", bytes: 0, at: 25)                      // an answer with no body
        b.origin("/videos/other/400k/seg0.ts", bytes: 1000, at: 30)                   // another video
        #expect(evaluate(id, b, context).outcome == .failed)
    }

    @Test func deadSpansOfRateTraces() {
        let rates = RateTrace(name: "gaps", segments: [
            .init(durationNanoseconds: ns(2), bitsPerSecond: 1_000_000),
            .init(durationNanoseconds: ns(3), bitsPerSecond: 0),
            .init(durationNanoseconds: ns(0.5), bitsPerSecond: 0),
        ], loops: true)
        let link = InterfaceLink(downlink: LinkDirectionParameters(rate: .trace(rates)))
        let reach = LinkReachability.from(initial: [.wifi: link], start: ns(10), phases: [], end: ns(22))
        // Dead 12–15 s and 17.5–20.5 s (each 3 s stretch at 0; the 0.5 s one is under the minimum).
        #expect(reach.isReachable(.wifi, at: ns(11)))
        #expect(!reach.isReachable(.wifi, at: ns(13)))
        #expect(reach.isReachable(.wifi, at: ns(16)))
        #expect(!reach.isReachable(.wifi, at: ns(19)))
        #expect(reach.isReachable(.cellular, at: ns(13)))
        // A phase that changes the link to a healthy one ends the dead stretch.
        let healed = LinkReachability.from(
            initial: [.wifi: link], start: ns(10), phases: [(t: ns(13), links: [.wifi: InterfaceLink()])], end: ns(22))
        #expect(healed.isReachable(.wifi, at: ns(14)))
        #expect(LinkReachability.isDead(InterfaceLink(uplink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 0)))))
        #expect(!LinkReachability.isDead(InterfaceLink()))
    }
}
