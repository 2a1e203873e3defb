import Testing
@testable import ClientComparison

/// Judging outputs, and what a run's outcome is.
@Suite struct OutputCheckTests {
    let segments: [[UInt8]] = [Array(repeating: 1, count: 100), Array(repeating: 2, count: 100), Array(repeating: 3, count: 50)]
    var content: [UInt8] { segments.flatMap { $0 } }
    var sizes: [Int] { segments.map(\.count) }

    @Test func aByteIdenticalCopyIsValid() {
        let check = OutputCheck.bytes(content, content: content, segmentSizes: sizes)
        #expect(check.valid)
        #expect(check.outputBytes == 250)
        #expect(check.detail.contains("byte-identical"))
    }

    @Test func aPrefixIsMissingContentAndSaysHowMuch() {
        let check = OutputCheck.bytes(Array(content.prefix(150)), content: content, segmentSizes: sizes)
        #expect(!check.valid)
        #expect(check.detail.contains("missing content: 150 of 250 bytes (60%)"))
        #expect(check.detail.contains("first 1 of 3 segments whole"))
    }

    @Test func aChangedByteIsCorruptionAndSaysWhere() {
        var output = content
        output[120] = 9
        let check = OutputCheck.bytes(output, content: content, segmentSizes: sizes)
        #expect(!check.valid)
        #expect(check.detail.contains("corrupt: differs from the content at byte 120 (in segment 2 of 3)"))
        let skipped = OutputCheck.bytes(segments[0] + segments[2], content: content, segmentSizes: sizes)
        #expect(!skipped.valid)
        #expect(skipped.detail.contains("at byte 100"))
    }

    @Test func extraBytesAreNotACopy() {
        let check = OutputCheck.bytes(content + [0], content: content, segmentSizes: sizes)
        #expect(!check.valid)
        #expect(check.detail.contains("1 bytes more"))
    }

    @Test func mediaIsValidWithTheWholeDurationAndNoDecodeError() {
        #expect(OutputCheck.media(outputBytes: 1, probedSeconds: 35.8, decodeErrors: 0, expectedSeconds: 36).valid)
        let short = OutputCheck.media(outputBytes: 1, probedSeconds: 18, decodeErrors: 0, expectedSeconds: 36)
        #expect(!short.valid)
        #expect(short.detail.contains("18.0 s of 36.0 s (content missing)"))
        let broken = OutputCheck.media(outputBytes: 1, probedSeconds: 36, decodeErrors: 2, expectedSeconds: 36)
        #expect(!broken.valid)
        #expect(broken.detail.contains("2 decode errors"))
        let unplayable = OutputCheck.media(outputBytes: 1, probedSeconds: nil, decodeErrors: 1, expectedSeconds: 36)
        #expect(!unplayable.valid)
        #expect(OutputCheck.tolerance(of: 10) == 0.5)
        #expect(OutputCheck.tolerance(of: 100) == 2)
    }

    @Test(arguments: [
        (Int32?.none, false, true, ClientOutcome.notRun),
        (0, true, true, .hung),
        (0, false, true, .ok),
        (0, false, false, .silentDataLoss),
        (1, false, false, .failed),
        (1, false, true, .failed),
        (3, false, true, .ok),  // 3 is a success status for this client
    ] as [(Int32?, Bool, Bool, ClientOutcome)])
    func outcomesFollowTheExitStatusAndTheOutput(status: Int32?, timedOut: Bool, valid: Bool, expected: ClientOutcome) {
        let output = OutputCheck(method: "bytes", valid: valid, outputBytes: 1, detail: "")
        #expect(ClientOutcome.classify(exitStatus: status, timedOut: timedOut, successExitCodes: [0, 3], output: output) == expected)
    }

    @Test func noOutputFileAfterASuccessIsSilentDataLoss() {
        #expect(ClientOutcome.classify(exitStatus: 0, timedOut: false, successExitCodes: [0], output: .missing) == .silentDataLoss)
    }
}

/// `--expect CLIENT:MODE=OUTCOME`.
@Suite struct ComparisonExpectationTests {
    func report(_ runs: [(String, FaultMode, ClientOutcome)]) -> ComparisonReport {
        ComparisonReport(
            run: .init(profile: "p", profilePath: "p", seed: 1, startedAt: .init(timeIntervalSince1970: 0), durationSeconds: 1, versions: [:], machine: [:]),
            content: .init(video: "compare", variant: "v", bandwidth: 1, durationSeconds: 1, segments: 1, bytes: 1, media: "synthetic"),
            links: [:], settings: FaultSettings(), clients: [], modes: [],
            runs: runs.map {
                ClientRunResult(client: $0.0, mode: $0.1, outcome: $0.2, command: "", attempts: [], exitStatus: 0, timedOut: false,
                                output: nil, metrics: nil, startNanoseconds: 0, endNanoseconds: 0, stderrTail: "")
            },
            connectTracing: "strace")
    }

    @Test func parsesAndJudges() throws {
        let one = try ComparisonExpectation(parsing: "ffmpeg:clean=ok")
        #expect(one.client == "ffmpeg" && one.mode == .clean && one.outcome == .ok)
        let all = try ComparisonExpectation(parsing: "deadzone:*=ok")
        #expect(all.mode == nil)
        let sample = report([("ffmpeg", .clean, .ok), ("ffmpeg", .resetWindow, .silentDataLoss), ("deadzone", .clean, .ok)])
        #expect(one.violations(in: sample).isEmpty)
        #expect(all.violations(in: sample).isEmpty)
        let loss = try ComparisonExpectation(parsing: "ffmpeg:*=ok").violations(in: sample)
        #expect(loss == ["ffmpeg:*=ok: ffmpeg × reset-window came out silent-data-loss"])
        #expect(try ComparisonExpectation(parsing: "typo:clean=ok").violations(in: sample).first?.contains("no such run") == true)
    }

    @Test(arguments: ["ffmpeg", "ffmpeg:clean", "ffmpeg:clean=great", ":clean=ok", "ffmpeg:sideways=ok"])
    func malformedExpectationsAreRefused(text: String) {
        #expect(throws: ClientDefinitionError.self) { try ComparisonExpectation(parsing: text) }
    }
}

/// A file whose middle is missing keeps its whole duration (the last segment's
/// timestamps are unchanged) and decodes cleanly (every segment starts on a key frame):
/// only the frame count shows the gap.
@Suite struct MediaGapTests {
    @Test func aGapInsideIsMissingContentEvenWithTheWholeDuration() {
        let gap = OutputCheck.media(outputBytes: 1, probedSeconds: 36, videoFrames: 300, expectedFrames: 900, decodeErrors: 0, expectedSeconds: 36)
        #expect(!gap.valid)
        #expect(gap.detail == "does not play whole: 300 of 900 video frames (content missing: a gap inside)")
        let whole = OutputCheck.media(outputBytes: 1, probedSeconds: 36, videoFrames: 899, expectedFrames: 900, decodeErrors: 0, expectedSeconds: 36)
        #expect(whole.valid, "one frame off is within tolerance")
        #expect(whole.detail.contains("899 of 900 video frames"))
        let noVideo = OutputCheck.media(outputBytes: 1, probedSeconds: 36, videoFrames: nil, expectedFrames: 900, decodeErrors: 0, expectedSeconds: 36)
        #expect(!noVideo.valid)
        #expect(OutputCheck.media(outputBytes: 1, probedSeconds: 36, decodeErrors: 0, expectedSeconds: 36).valid, "frames not checked when unknown")
    }
}
