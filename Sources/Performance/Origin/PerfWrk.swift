import BenchCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How wrk loads the server: its threads, connections, duration and request timeout.
struct PerfWrkLoad: Codable, Sendable {
    var threads: Int
    var connections: Int
    /// Whole seconds: wrk's `-d` takes no fractions.
    var seconds: Int
    var timeoutSeconds: Int = 2

    /// The wrk options, as typed on a command line.
    var arguments: [String] {
        ["-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--timeout", "\(timeoutSeconds)s"]
    }
}

/// The exact counts of one wrk run, from the JSON line its Lua `done()` prints, plus the
/// CPU wrk used (from `getrusage(RUSAGE_CHILDREN)` around the run).
struct PerfWrkResult: Codable, Sendable {
    var requests: Int
    /// Bytes read from the sockets: status lines, headers and bodies.
    var bytes: Int
    var durationMicroseconds: Int
    var connectErrors: Int
    var readErrors: Int
    var writeErrors: Int
    /// Responses with a status above 399 (wrk's own count, in every run).
    var statusErrors: Int
    var timeouts: Int
    /// Responses outside 2xx, and 2xx bodies of the wrong length: counted only in a checking run.
    var non2xx: Int
    var badLength: Int
    var latencyP50Microseconds: Double
    var latencyP99Microseconds: Double
    var cpuSeconds: Double = 0

    var seconds: Double { Double(durationMicroseconds) / 1e6 }
    var socketErrors: Int { connectErrors + readErrors + writeErrors + timeouts }
}

/// wrk (https://github.com/wg/wrk) run as a child process against a local server.
///
/// Each run writes a Lua script to a temporary file: it rotates over the given paths,
/// optionally checks every response (status 2xx and body length, which makes wrk slower,
/// so only warm-up runs check), and prints one `DEADZONE_WRK {json}` line in `done()`.
public enum PerfWrk {
    static let marker = "DEADZONE_WRK "

    /// The wrk executable on PATH, or nil. `bench perf origin` exits 2 without one.
    public static func locate() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/wrk" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Loads `http://127.0.0.1:port` + `paths` (round robin) with `load` and returns wrk's counts.
    /// `expectedLength` is the body length of every path, checked when `check` is set.
    /// Awaits wrk's exit without blocking a thread; throws when wrk fails or prints no result.
    static func run(executable: String, port: Int, paths: [String], expectedLength: Int, check: Bool,
                    load: PerfWrkLoad) async throws -> PerfWrkResult {
        guard let first = paths.first else { throw PerfError("wrk: no paths to request") }
        let stamp = "\(getpid())-\(PerfClock.now())"
        let directory = NSTemporaryDirectory() as NSString
        let scriptPath = directory.appendingPathComponent("deadzone-wrk-\(stamp).lua")
        let outputPath = directory.appendingPathComponent("deadzone-wrk-\(stamp).out")
        defer {
            try? FileManager.default.removeItem(atPath: scriptPath)
            try? FileManager.default.removeItem(atPath: outputPath)
        }
        try script(paths: paths, expectedLength: expectedLength, check: check).write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                executable, load.arguments + ["-s", scriptPath, "http://127.0.0.1:\(port)\(first)"],
                stdout: .file(outputPath), stderr: .stdout)
        } catch {
            throw PerfError("\(error)")
        }
        let status = await child.exit().status
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0, let line = text.split(separator: "\n").last(where: { $0.hasPrefix(marker) }) else {
            throw PerfError("wrk exited with status \(status) without a result; its output: \(text.suffix(400))")
        }
        var result: PerfWrkResult
        do { result = try JSONDecoder().decode(PerfWrkResult.self, from: Data(line.dropFirst(marker.count).utf8)) } catch {
            throw PerfError("cannot parse wrk's result line \(line): \(error)")
        }
        result.cpuSeconds = child.usage.map { $0.userSeconds + $0.systemSeconds } ?? 0
        return result
    }

    /// The Lua script of one run (see the type's documentation).
    static func script(paths: [String], expectedLength: Int, check: Bool) -> String {
        let quoted = paths.map { "\"\($0)\"" }.joined(separator: ", ")
        let rotation = paths.count < 2 ? "" : """
            function request()
              index = index % #formatted + 1
              return formatted[index]
            end
            """
        return """
            -- Written by `bench perf origin`; one run of wrk, then deleted.
            local paths = { \(quoted) }
            local expected = \(expectedLength)
            local check = \(check)
            local threads = {}

            function setup(thread) table.insert(threads, thread) end

            function init(args)
              formatted, index, non2xx, badLength = {}, 0, 0, 0
              for i, path in ipairs(paths) do formatted[i] = wrk.format("GET", path) end
              if check then
                response = function(status, headers, body)
                  if status < 200 or status > 299 then non2xx = non2xx + 1
                  elseif #body ~= expected then badLength = badLength + 1 end
                end
              end
            end
            \(rotation)
            function done(summary, latency, requests)
              local non2xx, badLength = 0, 0
              for _, thread in ipairs(threads) do
                non2xx = non2xx + (tonumber(thread:get("non2xx")) or 0)
                badLength = badLength + (tonumber(thread:get("badLength")) or 0)
              end
              local e = summary.errors
              io.write(string.format('\(marker){"requests":%.0f,"bytes":%.0f,"durationMicroseconds":%.0f,'
                .. '"connectErrors":%.0f,"readErrors":%.0f,"writeErrors":%.0f,"statusErrors":%.0f,"timeouts":%.0f,'
                .. '"non2xx":%.0f,"badLength":%.0f,"latencyP50Microseconds":%.0f,"latencyP99Microseconds":%.0f,"cpuSeconds":0}\\n',
                summary.requests, summary.bytes, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
                non2xx, badLength, latency:percentile(50), latency:percentile(99)))
            end

            """
    }
}
