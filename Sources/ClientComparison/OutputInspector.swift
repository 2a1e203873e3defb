import BenchCore
import Foundation

/// Judges a client's output file against the content the origin served: reads it and,
/// for media judgements, runs ffprobe (duration) and ffmpeg (a full decode, counting
/// error lines). The I/O half of `OutputCheck`.
public struct OutputInspector: Sendable {
    /// The segments of the variant as served, concatenated, and each one's size.
    public var content: [UInt8]
    public var segmentSizes: [Int]
    /// The video's duration and video frame count, for media judgements (nil frames:
    /// not checked).
    public var expectedSeconds: Double
    public var expectedVideoFrames: Int?
    /// Whether the content is real media (a media judgement is possible).
    public var isRealMedia: Bool
    /// ffprobe and ffmpeg executables (paths or names on `PATH`).
    public var ffprobe: String
    public var ffmpeg: String

    /// Creates an inspector.
    public init(
        content: [UInt8], segmentSizes: [Int], expectedSeconds: Double, expectedVideoFrames: Int? = nil,
        isRealMedia: Bool, ffprobe: String = "ffprobe", ffmpeg: String = "ffmpeg"
    ) {
        self.content = content
        self.segmentSizes = segmentSizes
        self.expectedSeconds = expectedSeconds
        self.expectedVideoFrames = expectedVideoFrames
        self.isRealMedia = isRealMedia
        self.ffprobe = ffprobe
        self.ffmpeg = ffmpeg
    }

    /// The judgement of the file at `path` by `method`. A `media` judgement of synthetic
    /// content is not possible; callers do not run such clients (`ClientOutcome.notRun`).
    public func check(_ path: String, method: OutputValidationMethod) async -> OutputCheck {
        guard let data = FileManager.default.contents(atPath: path) else { return .missing }
        let output = [UInt8](data)
        let exact = OutputCheck.bytes(output, content: content, segmentSizes: segmentSizes)
        switch method {
        case .bytes:
            return exact
        case .auto where exact.valid, .auto where !isRealMedia:
            return exact
        case .auto:
            return await media(path, bytes: output.count, note: "not byte-identical (\(exact.detail))")
        case .media:
            return await media(path, bytes: output.count, note: "")
        }
    }

    private func media(_ path: String, bytes: Int, note: String) async -> OutputCheck {
        let probe = await ToolRun.run([
            ffprobe, "-v", "error", "-count_packets", "-select_streams", "v:0",
            "-show_entries", "format=duration:stream=nb_read_packets", "-of", "default=noprint_wrappers=1", path,
        ])
        var fields: [String: String] = [:]
        for line in probe.output.split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2 { fields[pair[0]] = pair[1] }
        }
        let seconds = fields["duration"].flatMap(Double.init)
        let frames = fields["nb_read_packets"].flatMap(Int.init)
        let decode = await ToolRun.run([ffmpeg, "-nostdin", "-hide_banner", "-v", "error", "-i", path, "-f", "null", "-"])
        let errors = decode.errors.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.count
            + (decode.status == 0 ? 0 : 1)
        return OutputCheck.media(
            outputBytes: bytes, probedSeconds: seconds, videoFrames: frames, expectedFrames: expectedVideoFrames,
            decodeErrors: errors, expectedSeconds: expectedSeconds, note: note)
    }
}

/// Runs a tool to its end (or `timeout`) and collects what it printed.
enum ToolRun {
    struct Result {
        var status: Int32?
        var output: String
        var errors: String
    }

    static func run(_ argv: [String], timeout: Duration = .seconds(120)) async -> Result {
        let directory = NSTemporaryDirectory() + "deadzone-tool-\(UUID().uuidString)"
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            return Result(status: nil, output: "", errors: "cannot create \(directory): \(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stdout = directory + "/stdout", stderr = directory + "/stderr"
        let command = "exec " + argv.map(ClientCommandLine.shellQuoted).joined(separator: " ")
        let process: ClientProcess
        do { process = try ClientProcess.launch(command: command, directory: directory, stdoutPath: stdout, stderrPath: stderr) } catch {
            return Result(status: nil, output: "", errors: error.description)
        }
        let deadline = ContinuousClock.now + timeout
        var status = process.poll()
        while status == nil, ContinuousClock.now < deadline {
            _ = try? await Timekeeper.shared.sleep(for: .milliseconds(20))
            status = process.poll()
        }
        if status == nil { status = await process.killGroup() }
        func read(_ path: String) -> String {
            (FileManager.default.contents(atPath: path)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        return Result(status: status, output: read(stdout), errors: read(stderr))
    }
}
