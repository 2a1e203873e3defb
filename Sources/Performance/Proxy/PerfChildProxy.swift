import BenchCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `bench proxy` run as a child process (of this executable by default), so its CPU time can be read
/// from /proc/<pid>/stat apart from the load generators.
///
/// Its stdout goes to a log file (stdio buffers it fully, so the `wifi HOST:PORT` line is not
/// usable while it runs): the wifi port is picked here and readiness is seen in /proc/net/tcp.
final class PerfChildProxy {
    let child: ChildProcess
    var pid: pid_t { child.pid }
    let wifiHost: String
    let wifiPort: UInt16
    let logPath: String
    let profilePath: String

    /// Writes `profileYAML` to a temp file and starts `<bench> proxy` on it (`benchExecutable`,
    /// or this process's executable when nil); waits until it listens.
    init(profileYAML: String, upstreamPort: UInt16, wifiHost: String = "127.0.0.2", benchExecutable: String? = nil) throws {
        let stamp = "\(getpid())-\(PerfClock.now())"
        let directory = NSTemporaryDirectory()
        profilePath = (directory as NSString).appendingPathComponent("deadzone-perf-\(stamp).yaml")
        logPath = (directory as NSString).appendingPathComponent("deadzone-perf-\(stamp).log")
        try profileYAML.write(toFile: profilePath, atomically: true, encoding: .utf8)
        self.wifiHost = wifiHost
        do {
            wifiPort = try PerfSocket.freePort(host: wifiHost)
            let executable = try benchExecutable ?? PerfProcess.currentExecutable()
            let arguments = ["proxy", "--profile", profilePath, "--upstream", "127.0.0.1:\(upstreamPort)",
                             "--wifi", "\(wifiHost):\(wifiPort)", "--cellular", "127.0.0.3:0", "--duration", "forever"]
            do { child = try ChildProcess.spawn(executable, arguments, stdout: .file(logPath), stderr: .stdout) } catch {
                throw PerfError("\(error)")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: profilePath)
            try? FileManager.default.removeItem(atPath: logPath)
            throw error
        }
        do {
            try waitUntilListening(timeout: 15)
        } catch {
            let log = terminate()
            throw PerfError("\(error); child output: \(log.suffix(400))")
        }
    }

    deinit { _ = terminate() }

    /// CPU seconds (user, system) the child has used so far.
    func cpuSeconds() throws -> (user: Double, system: Double) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { throw PerfError("cannot read /proc/\(pid)/stat") }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); utime is field 14, stime field 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw PerfError("unexpected /proc/\(pid)/stat: \(text.prefix(120))")
        }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user / ticks, system / ticks)
    }

    /// Threads of the child and the CPU ticks each used (for diagnosis).
    func threadTicks() -> [(name: String, ticks: Int)] {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return [] }
        return tasks.compactMap { tid in
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/stat", encoding: .utf8),
                  let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
            return (String(text[text.index(after: open)..<close]), user + system)
        }
    }

    var isAlive: Bool { child.isRunning }

    /// SIGTERM (the child stops its conditioner and prints counters), SIGKILL after 5 s; reaps it,
    /// deletes the temp files and returns what it printed. Idempotent.
    @discardableResult
    func terminate() -> String {
        if child.isRunning {
            child.send(SIGTERM)
            let deadline = PerfClock.now() + 5_000_000_000
            while child.isRunning, PerfClock.now() < deadline { PerfClock.sleep(seconds: 0.02) }
            child.send(SIGKILL)
            child.waitForExit()
        }
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: profilePath)
        try? FileManager.default.removeItem(atPath: logPath)
        return log
    }

    private func waitUntilListening(timeout: Double) throws {
        let local = try Self.procNetAddress(host: wifiHost, port: wifiPort)
        let deadline = PerfClock.now() + UInt64(timeout * 1e9)
        while PerfClock.now() < deadline {
            guard isAlive else { throw PerfError("the child proxy exited before listening") }
            if let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) {
                for line in table.split(separator: "\n").dropFirst() {
                    let columns = line.split(separator: " ")
                    if columns.count > 3, columns[1] == local, columns[3] == "0A" { return }
                }
            }
            PerfClock.sleep(seconds: 0.02)
        }
        throw PerfError("the child proxy did not listen on \(wifiHost):\(wifiPort) within \(timeout) s")
    }

    /// `0200007F:8CA1` for 127.0.0.2:36001, as /proc/net/tcp writes it.
    private static func procNetAddress(host: String, port: UInt16) throws -> Substring {
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { throw PerfError("bad address \(host)") }
        return Substring(String(format: "%08X:%04X", address.s_addr, port))
    }
}
