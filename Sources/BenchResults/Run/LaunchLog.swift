import Foundation

/// What one launch of the app under test wrote on its stderr during a scenario. The
/// harness sends each launch's stderr to a file of its own, reads it when the scenario
/// ends and removes the file (nothing is left in the temporary directory); the report
/// writer keeps it beside the report (`file(scenario:)`), linked from the scenario.
public struct LaunchLog: Sendable, Hashable, Codable {
    /// 1 for the first launch of the scenario, 2 for the relaunch after the first kill…
    public var launch: Int
    /// How many bytes the launch wrote in all.
    public var bytes: Int
    /// The last `tailLimit` bytes of it (all of it when shorter), as UTF-8 (invalid bytes
    /// replaced).
    public var tail: String

    /// Creates a log.
    public init(launch: Int, bytes: Int, tail: String) {
        self.launch = launch
        self.bytes = bytes
        self.tail = tail
    }

    /// The most of a launch's stderr a report keeps: its end, where a crash says why.
    public static let tailLimit = 64 * 1024

    /// Whether the report keeps less than the launch wrote.
    public var truncated: Bool { bytes > tail.utf8.count }

    /// Its file in a report directory: `stderr/<scenario>-launch-<n>.txt`.
    public func file(scenario: String) -> String { "stderr/\(scenario)-launch-\(launch).txt" }

    /// Reads the stderr file of launch `launch` at `path` (its tail, as `tailLimit`
    /// says); nil when there is no such file.
    public static func read(launch: Int, path: String) -> LaunchLog? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()).map(Int.init) ?? 0
        let start = max(0, size - tailLimit)
        try? handle.seek(toOffset: UInt64(start))
        let data = (try? handle.readToEnd()) ?? Data()
        return LaunchLog(launch: launch, bytes: size, tail: String(decoding: data, as: UTF8.self))
    }
}
