import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The executable the benchmarks re-run as children (`bench proxy`, `bench download`);
/// they start them with BenchCore's `ChildProcess`.
enum PerfProcess {
    /// This process's executable (/proc/self/exe, else Bundle.main, else argv[0]): the
    /// `bench` the benchmarks run children of when their configuration names none.
    static func currentExecutable() throws -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 { return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        if let path = Bundle.main.executablePath { return path }
        let argument = CommandLine.arguments[0]
        guard FileManager.default.isExecutableFile(atPath: argument) else {
            throw PerfError("cannot find this executable (/proc/self/exe, Bundle.main and argv[0] failed)")
        }
        return argument
    }
}

/// CPU time from `getrusage` (this process) and `/proc/stat` (the machine).
enum PerfRusage {
    /// CPU seconds all CPUs spent not idle since boot (user, nice, system, irq, softirq, steal).
    static func machineBusySeconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return 0 }
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { return 0 }
        return (ticks.prefix(8).reduce(0, +) - ticks[3] - ticks[4]) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// User + system CPU seconds of this process (a child's are its `ChildProcess.usage`).
    static func cpuSeconds() -> Double {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
