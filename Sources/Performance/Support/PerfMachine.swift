import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// CPU affinity through glibc's `sched_setaffinity` (found with dlsym: Swift's Glibc
/// module is not built with _GNU_SOURCE, so the call is not imported).
enum PerfAffinity {
    private typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer?) -> Int32
    private typealias GetCPU = @convention(c) () -> Int32

    /// Pins the calling thread (and every thread it creates afterwards) to `cpu`.
    static func pinCurrentThread(toCPU cpu: Int) throws {
        guard let symbol = dlsym(nil, "sched_setaffinity") else { throw PerfError("sched_setaffinity not found") }
        let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
        var set = cpu_set_t()
        withUnsafeMutableBytes(of: &set) { bytes in
            bytes.storeBytes(of: UInt8(1) << UInt8(cpu % 8), toByteOffset: cpu / 8, as: UInt8.self)
        }
        let rc = withUnsafePointer(to: &set) { setAffinity(0, MemoryLayout<cpu_set_t>.size, $0) }
        if rc != 0 { throw PerfError.system("sched_setaffinity(cpu \(cpu))") }
    }

    /// The CPU the calling thread runs on, or -1.
    static func currentCPU() -> Int {
        guard let symbol = dlsym(nil, "sched_getcpu") else { return -1 }
        return Int(unsafeBitCast(symbol, to: GetCPU.self)())
    }

    /// CPUs online on this machine (at least 1).
    static var onlineCPUs: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}

enum PerfLimits {
    /// Raises the soft open-file limit to at least `needed` (up to the hard limit).
    /// Children inherit it. Returns the new soft limit.
    @discardableResult
    static func raiseOpenFiles(to needed: Int) throws -> Int {
        var limit = rlimit()
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { throw PerfError.system("getrlimit(RLIMIT_NOFILE)") }
        if limit.rlim_cur >= rlim_t(needed) { return Int(limit.rlim_cur) }
        let wanted = rlim_t(needed) > limit.rlim_max ? limit.rlim_max : rlim_t(needed)
        limit.rlim_cur = wanted
        guard setrlimit(resource, &limit) == 0 else { throw PerfError.system("setrlimit(RLIMIT_NOFILE, \(wanted))") }
        guard wanted >= rlim_t(needed) else {
            throw PerfError("the open-file limit is \(wanted) (hard); \(needed) are needed: raise it with ulimit -Hn")
        }
        return Int(wanted)
    }
}

/// How busy the machine was just before a run, to judge whether its figures can be trusted.
public struct PerfMachineLoad: Sendable, Equatable {
    /// Fraction (0...1) of all CPUs' time that was not idle.
    public var busy: Double
    /// The 1-minute load average.
    public var loadAverage: Double

    public init(busy: Double, loadAverage: Double) {
        self.busy = busy
        self.loadAverage = loadAverage
    }

    /// Samples /proc/stat over `seconds` and reads /proc/loadavg (zeros where they are missing).
    public static func sample(seconds: Double = 0.5) async -> PerfMachineLoad {
        let first = totals()
        try? await Task.sleep(for: .seconds(seconds))
        let second = totals()
        let total = Double(second.total - first.total), idle = Double(second.idle - first.idle)
        return PerfMachineLoad(busy: total > 0 ? max(0, 1 - idle / total) : 0, loadAverage: loadAverage())
    }

    static func loadAverage() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
              let first = text.split(separator: " ").first else { return 0 }
        return Double(first) ?? 0
    }

    private static func totals() -> (total: UInt64, idle: UInt64) {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return (0, 0) }
        let values = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard values.count >= 5 else { return (0, 0) }
        // user nice system idle iowait irq softirq steal ...
        return (values.prefix(8).reduce(0, +), values[3] + values[4])
    }
}

/// On-CPU and run-queue time of this process's threads, by thread name (from
/// /proc/self/task/*/schedstat, nanoseconds), to see where a measurement's CPU went.
struct PerfThreadTimes {
    /// name → (on CPU, runnable but waiting for a CPU), summed over threads of that name.
    var byName: [String: (running: UInt64, waiting: UInt64)] = [:]

    static func snapshot() -> PerfThreadTimes {
        var result = PerfThreadTimes()
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return result }
        for tid in tasks {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8),
                  let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/schedstat", encoding: .utf8) else { continue }
            let fields = stat.split(separator: " ").compactMap { UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            guard fields.count >= 2 else { continue }
            let name = comm.trimmingCharacters(in: .whitespacesAndNewlines)
            let old = result.byName[name] ?? (0, 0)
            result.byName[name] = (old.running + fields[0], old.waiting + fields[1])
        }
        return result
    }

    /// Time used since `earlier` by threads whose name starts with `prefix` (threads that
    /// started in between count from zero; threads that ended are lost).
    func since(_ earlier: PerfThreadTimes, prefix: String) -> (running: Double, waiting: Double) {
        var running = 0.0, waiting = 0.0
        for (name, now) in byName where name.hasPrefix(prefix) {
            let before = earlier.byName[name] ?? (0, 0)
            running += Double(now.running &- before.running) / 1e9
            waiting += Double(now.waiting &- before.waiting) / 1e9
        }
        return (running, waiting)
    }
}
