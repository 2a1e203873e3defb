import BenchCore
import Foundation
import Testing

/// ffmpeg and ffprobe as real child processes, for the real-media tests. `.ci/run`
/// installs them; without them a test fails saying how to install them (never skips).
struct MediaTools {
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "ffmpeg and ffprobe are needed for real-media tests: apt-get install ffmpeg (or DEADZONE_NEEDS_FFMPEG=1 bash .ci/install-deps)"
        }
    }

    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    let ffmpeg: String
    let ffprobe: String

    init() throws {
        guard let ffmpeg = Self.locate("ffmpeg"), let ffprobe = Self.locate("ffprobe") else { throw Missing() }
        self.ffmpeg = ffmpeg
        self.ffprobe = ffprobe
    }

    /// Runs `executable`, killing it after `timeout` so a test never hangs.
    func run(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(180)) async throws -> Run {
        let run = try await ChildProcess.run(executable, arguments, timeout: timeout)
        return Run(status: run.status, output: run.stdout, errors: run.stderr)
    }

    /// Format duration in seconds, as ffprobe reports it.
    func duration(of file: String) async throws -> Double? {
        let run = try await run(ffprobe, ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file])
        return Double(run.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// `codec_name,width,height` (or `codec_name` for audio) per stream, as ffprobe sees them.
    func streams(of file: String) async throws -> [String] {
        let run = try await run(ffprobe, ["-v", "error", "-show_streams", "-of", "json", file])
        let json = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let streams = json?["streams"] as? [[String: Any]] ?? []
        return streams.map { stream in
            let codec = stream["codec_name"] as? String ?? "?"
            guard let width = stream["width"] as? Int, let height = stream["height"] as? Int else { return codec }
            return "\(codec),\(width),\(height)"
        }
    }

    /// Everything ffmpeg reports at level `error` while decoding all of `file`; empty when clean.
    func decodeErrors(of file: String) async throws -> String {
        let run = try await run(ffmpeg, ["-nostdin", "-v", "error", "-i", file, "-f", "null", "-"])
        return run.status == 0 ? run.errors : "exit \(run.status): \(run.errors)"
    }

    static func locate(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "deadzone-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
