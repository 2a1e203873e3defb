import BenchCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How one `bench download` child process ended, and what it used.
struct PerfEngineChildResult: Sendable {
    /// Exit code, or nil when a signal ended it.
    var exitCode: Int32?
    /// The signal that ended it, if one did.
    var signal: Int32?
    /// True when it ran past its time limit and was killed.
    var timedOut: Bool
    /// From spawn to reaped, in seconds.
    var wallSeconds: Double
    /// User and system CPU seconds (wait4's rusage).
    var userSeconds: Double
    var systemSeconds: Double
    /// wait4's `ru_maxrss`, in bytes. On Linux it is the larger of the child's own peak and
    /// the parent's peak at spawn time (the spawned child shares the parent's mm until exec, and
    /// exec records the old mm's high-water mark): see `parentPeakAtSpawn`.
    var maxRSSBytes: Int
    /// The highest `VmHWM` read from /proc/<pid>/status while it ran: the high-water mark
    /// of its own address space, sampled every `sampleInterval`.
    var sampledPeakRSSBytes: Int
    /// This process's own `VmHWM` just before the spawn.
    var parentPeakAtSpawn: Int
    /// Lines of the child's output with the instant each was first seen (s after spawn).
    var lines: [(seconds: Double, text: String)]

    /// The child's own peak RSS: wait4's figure when it is clearly (2 MiB) above the
    /// parent's high-water mark at spawn, so it can only be the child's; else the sampled one.
    var peakRSSBytes: Int { maxRSSIsChilds ? max(maxRSSBytes, sampledPeakRSSBytes) : sampledPeakRSSBytes }
    var maxRSSIsChilds: Bool { maxRSSBytes > parentPeakAtSpawn + (2 << 20) }
    var peakRSSSource: String {
        maxRSSIsChilds ? "wait4 ru_maxrss" : "sampled VmHWM, as ru_maxrss is this process's peak at spawn"
    }
    var succeeded: Bool { exitCode == 0 && !timedOut }

    /// "exit 0", "exit 1", "killed by signal 9 after the 120 s limit".
    var ending: String {
        if timedOut { return "killed after its \(PerfFormat.number(wallSeconds)) s time limit" }
        if let exitCode { return "exit \(exitCode)" }
        return "killed by signal \(signal ?? 0)"
    }

    /// The last `count` lines, one string.
    func tail(_ count: Int) -> String {
        lines.suffix(count).map(\.text).joined(separator: " | ")
    }
}

/// Runs `bench download` (this executable's `download` subcommand by default) as a child
/// process and watches it:
/// output lines timestamped as they appear, VmHWM sampled, rusage from `wait4`.
///
/// Called from the command's task; it polls (`Task.sleep`) and never blocks a thread.
enum PerfEngineChild {
    static let sampleInterval = 0.02

    /// Runs `executable` (nil: this process's) with `arguments`, killed after `timeLimit` seconds.
    static func run(executable: String?, arguments: [String], timeLimit: Double) async throws -> PerfEngineChildResult {
        let executable = try executable ?? PerfProcess.currentExecutable()
        let log = (NSTemporaryDirectory() as NSString).appendingPathComponent("deadzone-perf-engine-\(getpid())-\(PerfClock.now()).log")
        defer { try? FileManager.default.removeItem(atPath: log) }
        let parentPeak = peakRSS(of: "self") ?? 0
        let start = PerfClock.now()
        let child: ChildProcess
        do { child = try ChildProcess.spawn(executable, arguments, stdout: .file(log), stderr: .stdout) } catch {
            throw PerfError("\(error)")
        }
        var result = PerfEngineChildResult(
            exitCode: nil, signal: nil, timedOut: false, wallSeconds: 0, userSeconds: 0, systemSeconds: 0, maxRSSBytes: 0,
            sampledPeakRSSBytes: 0, parentPeakAtSpawn: parentPeak, lines: [])
        var reader = PerfLineReader(path: log)
        let deadline = start + UInt64(timeLimit * 1e9)
        while true {
            if let peak = peakRSS(of: "\(child.pid)") { result.sampledPeakRSSBytes = max(result.sampledPeakRSSBytes, peak) }
            let ended = child.termination
            let now = PerfClock.now()
            for text in reader.newLines() { result.lines.append((PerfClock.seconds(now - start), text)) }
            if let ended, let usage = child.usage {
                result.wallSeconds = PerfClock.seconds(now - start)
                (result.userSeconds, result.systemSeconds) = (usage.userSeconds, usage.systemSeconds)
                result.maxRSSBytes = usage.maxRSSBytes
                switch ended {
                case .exited(let code): result.exitCode = code
                case .signalled(let signal): result.signal = signal
                case .lost: throw PerfError("bench download (pid \(child.pid)) was reaped elsewhere: its status is lost")
                }
                for text in reader.newLines(final: true) { result.lines.append((result.wallSeconds, text)) }
                return result
            }
            if now > deadline, !result.timedOut {
                result.timedOut = true
                child.send(SIGKILL)
            }
            try? await Task.sleep(for: .seconds(sampleInterval))
        }
    }

    /// `VmHWM` of /proc/<which>/status in bytes, or nil (process gone).
    static func peakRSS(of which: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(which)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        return kib * 1024
    }
}

/// Reads the lines a child appends to its log file, as they appear.
struct PerfLineReader {
    let path: String
    private var offset: UInt64 = 0
    private var pending: [UInt8] = []

    init(path: String) { self.path = path }

    /// Complete lines added since the last call; with `final`, the unterminated rest too.
    mutating func newLines(final: Bool = false) -> [String] {
        if let handle = FileHandle(forReadingAtPath: path) {
            defer { try? handle.close() }
            if (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd() {
                offset += UInt64(data.count)
                pending += data
            }
        }
        var lines: [String] = []
        while let newline = pending.firstIndex(of: 0x0A) {
            lines.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        if final, !pending.isEmpty {
            lines.append(String(decoding: pending, as: UTF8.self))
            pending.removeAll()
        }
        return lines
    }
}
