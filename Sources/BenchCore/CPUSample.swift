import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The machine's CPU time and this process's, at one moment: two samples say how much
/// of the machine's CPU went to other processes in between (a busy machine's mark on a
/// run's timing metrics, which the harness's clock alone does not show: its threads wake
/// on time while the app's work waits for a core).
public struct CPUSample: Sendable, Hashable {
    /// CPU-seconds every core spent busy since boot (`/proc/stat`: user, nice, system,
    /// irq, softirq, steal; not idle, not iowait).
    public var machineBusySeconds: Double
    /// CPU-seconds of this process and of the children it has reaped (`getrusage`).
    public var ownSeconds: Double
    /// Seconds on the monotonic clock.
    public var wallSeconds: Double
    /// The cores `/proc/stat` counts.
    public var cores: Int

    /// Creates a sample.
    public init(machineBusySeconds: Double, ownSeconds: Double, wallSeconds: Double, cores: Int) {
        self.machineBusySeconds = machineBusySeconds
        self.ownSeconds = ownSeconds
        self.wallSeconds = wallSeconds
        self.cores = cores
    }

    /// This moment's sample; nil where `/proc/stat` cannot be read (not Linux).
    public static func now() -> CPUSample? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let (busy, cores) = machineBusy(procStat: text, ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))))
        else { return nil }
        func seconds(_ who: Int32) -> Double {
            var usage = rusage()
            getrusage(__rusage_who_t(who), &usage)
            let time = { (t: timeval) in Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
            return time(usage.ru_utime) + time(usage.ru_stime)
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        return CPUSample(
            machineBusySeconds: busy, ownSeconds: seconds(RUSAGE_SELF.rawValue) + seconds(RUSAGE_CHILDREN.rawValue),
            wallSeconds: wall, cores: cores)
    }

    /// The busy CPU-seconds of the aggregate `cpu` line of `/proc/stat`, and how many
    /// `cpuN` lines it has; nil when the text has no such line.
    static func machineBusy(procStat: String, ticksPerSecond: Double) -> (Double, Int)? {
        let lines = procStat.split(separator: "\n")
        guard ticksPerSecond > 0, let total = lines.first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        // user nice system idle iowait irq softirq steal (guest time is inside user).
        let fields = total.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard fields.count >= 8 else { return nil }
        let busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]
        let cores = lines.filter { $0.hasPrefix("cpu") && $0.dropFirst(3).first?.isNumber == true }.count
        return (busy / ticksPerSecond, max(cores, 1))
    }

    /// The share (0…1) of the machine's capacity that other processes used from this
    /// sample to `later`; nil when no time passed.
    public func othersShare(until later: CPUSample) -> Double? {
        let wall = later.wallSeconds - wallSeconds
        guard wall > 0, cores > 0 else { return nil }
        let others = (later.machineBusySeconds - machineBusySeconds) - (later.ownSeconds - ownSeconds)
        return min(max(others / (wall * Double(cores)), 0), 1)
    }
}
