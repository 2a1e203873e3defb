/// What the harness found in a client's output file.
public struct OutputCheck: Sendable, Hashable, Codable {
    /// How it was judged: `bytes`, `media`, or `none` (no file to judge).
    public var method: String
    public var valid: Bool
    /// The output's size; nil when there is no file.
    public var outputBytes: Int?
    /// For people: what matched and what did not.
    public var detail: String
    /// `media`: what ffprobe found (the duration, and how many video frames: a gap in
    /// the middle leaves the duration whole but the frames short), and how many errors
    /// decoding reported.
    public var probedSeconds: Double?
    public var videoFrames: Int?
    public var decodeErrors: Int?

    /// Creates a check.
    public init(
        method: String, valid: Bool, outputBytes: Int?, detail: String, probedSeconds: Double? = nil,
        videoFrames: Int? = nil, decodeErrors: Int? = nil
    ) {
        self.method = method
        self.valid = valid
        self.outputBytes = outputBytes
        self.detail = detail
        self.probedSeconds = probedSeconds
        self.videoFrames = videoFrames
        self.decodeErrors = decodeErrors
    }

    /// No output file.
    public static let missing = OutputCheck(method: "none", valid: false, outputBytes: nil, detail: "no output file")

    /// The byte comparison of `output` with `content` (the segments of the variant, in
    /// order, whose sizes are `segmentSizes`). Pure.
    public static func bytes(_ output: [UInt8], content: [UInt8], segmentSizes: [Int]) -> OutputCheck {
        if output == content {
            return OutputCheck(
                method: "bytes", valid: true, outputBytes: output.count,
                detail: "byte-identical to the \(segmentSizes.count) segments as served")
        }
        let common = zip(output, content).prefix { $0 == $1 }.count
        var wholeSegments = 0
        var offset = 0
        for size in segmentSizes {
            guard offset + size <= common else { break }
            offset += size
            wholeSegments += 1
        }
        let percent = content.isEmpty ? 0 : Int((Double(output.count) / Double(content.count) * 100).rounded())
        let detail: String
        if common == output.count {
            detail = "missing content: \(output.count) of \(content.count) bytes (\(percent)%), "
                + "the first \(wholeSegments) of \(segmentSizes.count) segments whole, then nothing"
        } else if common == content.count {
            detail = "\(output.count - content.count) bytes more than the content after a correct copy"
        } else {
            detail = "corrupt: differs from the content at byte \(common) (in segment \(wholeSegments + 1) of "
                + "\(segmentSizes.count)); \(output.count) of \(content.count) bytes"
        }
        return OutputCheck(method: "bytes", valid: false, outputBytes: output.count, detail: detail)
    }

    /// The media judgement: the probed duration within `tolerance(of:)` of
    /// `expectedSeconds`, the video frames within `frameTolerance(of:)` of
    /// `expectedFrames` (when known), and no decode error. Pure.
    public static func media(
        outputBytes: Int, probedSeconds: Double?, videoFrames: Int? = nil, expectedFrames: Int? = nil, decodeErrors: Int,
        expectedSeconds: Double, note: String = ""
    ) -> OutputCheck {
        let prefix = note.isEmpty ? "" : note + "; "
        guard let probedSeconds else {
            return OutputCheck(
                method: "media", valid: false, outputBytes: outputBytes,
                detail: prefix + "ffprobe finds no duration: not a playable file", videoFrames: videoFrames,
                decodeErrors: decodeErrors)
        }
        var problems: [String] = []
        if abs(probedSeconds - expectedSeconds) > tolerance(of: expectedSeconds) {
            problems.append(String(format: "%.1f s of %.1f s", probedSeconds, expectedSeconds)
                + (probedSeconds < expectedSeconds ? " (content missing)" : " (too long)"))
        }
        // No video stream at all counts as no frame.
        if let expectedFrames, case let frames = videoFrames ?? 0, abs(frames - expectedFrames) > frameTolerance(of: expectedFrames) {
            problems.append("\(frames) of \(expectedFrames) video frames"
                + (frames < expectedFrames ? " (content missing" + (problems.isEmpty ? ": a gap inside" : "") + ")" : " (too many)"))
        }
        if decodeErrors > 0 { problems.append("\(decodeErrors) decode error\(decodeErrors == 1 ? "" : "s")") }
        let frames = videoFrames.map { ", \($0)" + (expectedFrames.map { " of \($0)" } ?? "") + " video frames" } ?? ""
        let detail = problems.isEmpty
            ? String(format: "plays: %.1f s of %.1f s", probedSeconds, expectedSeconds) + frames + ", no decode error"
            : "does not play whole: " + problems.joined(separator: ", ")
        return OutputCheck(
            method: "media", valid: problems.isEmpty, outputBytes: outputBytes, detail: prefix + detail,
            probedSeconds: probedSeconds, videoFrames: videoFrames, decodeErrors: decodeErrors)
    }

    /// How far a frame count may be from the video's: 2 frames, or 1% of a long one.
    public static func frameTolerance(of frames: Int) -> Int {
        max(2, frames / 100)
    }

    /// How far a probed duration may be from the video's: half a second, or 2% of a long one.
    public static func tolerance(of seconds: Double) -> Double {
        max(0.5, seconds * 0.02)
    }
}

/// How a run of a client ended, all things considered.
public enum ClientOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// It said it succeeded, and the output is the whole content.
    case ok
    /// It said it succeeded (a success exit status), but the output is missing or
    /// corrupt: the worst outcome, a user would never know.
    case silentDataLoss = "silent-data-loss"
    /// It said it failed (another exit status): honest, whatever the output.
    case failed
    /// It was still running at the time limit and was killed.
    case hung
    /// It was not run: a tool it needs is missing, or its validation needs real media.
    case notRun = "not-run"

    /// Classifies a finished run. Pure.
    /// - Parameters:
    ///   - exitStatus: the last attempt's status (nil when never started).
    ///   - timedOut: whether the time limit killed it.
    public static func classify(
        exitStatus: Int32?, timedOut: Bool, successExitCodes: [Int32], output: OutputCheck?
    ) -> ClientOutcome {
        guard let exitStatus else { return .notRun }
        if timedOut { return .hung }
        guard successExitCodes.contains(exitStatus) else { return .failed }
        return output?.valid == true ? .ok : .silentDataLoss
    }
}
