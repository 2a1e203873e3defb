import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertyProgressTests {
    let id = "monotonic-progress"

    @Test func risingProgressThatReachesOnePasses() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.progress("d1", 0.25, at: 1)
        b.progress("d1", 0.5, selection: "audio_fr", at: 1)
        b.progress("d1", 0.75, at: 2)
        b.progress("d1", 1, selection: "audio_fr", at: 2)
        b.progress("d1", 1, at: 3)
        b.state("d1", .downloading, at: 0.5)
        b.state("d1", .downloaded, at: 3)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 3, contains: "progress of d1 video reached 1")
        expectEvidence(verdict, at: 2, contains: "progress of d1 audio_fr reached 1")
    }

    @Test func fallingProgressInOneProcessFails() {
        var b = TraceBuilder()
        b.progress("d1", 0.6, at: 1)
        b.progress("d1", 0.4, at: 2)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 2, contains: "progress of d1 video fell from 0.6 (at 1.000 s) to 0.4 in the same agent process")
    }

    @Test func progressMayRestartLowerInANewProcess() {
        var b = TraceBuilder()
        b.progress("d1", 0.6, at: 1)
        b.kill(at: 1.5)
        b.launch(after: .crash, at: 1.6)
        b.progress("d1", 0.5, at: 2)
        #expect(evaluate(id, b).outcome == .passed)
    }

    @Test func progressOutsideZeroToOneFails() {
        var b = TraceBuilder()
        b.progress("d1", 1.2, at: 1)
        b.progress("d1", .nan, selection: "audio", at: 2)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 1, contains: "progress of d1 video was 1.2, outside 0…1")
        expectEvidence(verdict, at: 2, contains: "progress of d1 audio was nan, outside 0…1")
    }

    @Test func aDownloadedVideoShortOfOneFails() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 0.5)
        b.progress("d1", 0.9, at: 1)
        b.state("d1", .downloaded, at: 2)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 1, contains: "download d1 ended downloaded but video last reported progress 0.9, not 1")
    }

    @Test func noProgressIsNotApplicable() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        #expect(evaluate(id, b).outcome == .notApplicable)
    }
}
