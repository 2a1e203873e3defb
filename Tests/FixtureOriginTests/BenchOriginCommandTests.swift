import BenchCore
import Foundation
import TestSupport
import Testing

/// `bench origin --faults FILE` as a user runs it: the `bench` executable that
/// `swift build` put beside the test bundle, as a child process.
@Suite(.timeLimit(.minutes(3)))
struct BenchOriginCommandTests {
    struct BenchMissing: Error, CustomStringConvertible {
        var directory: String
        var description: String {
            "no bench executable near \(directory): run `swift build --build-tests` before `swift test --skip-build`"
        }
    }

    static func bench() throws -> String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("bench").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw BenchMissing(directory: directory.path)
    }

    static func write(_ json: String, in directory: TemporaryDirectory) throws -> String {
        let file = directory.path + "/faults.json"
        try Data(json.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// Starts `bench origin --port 0 --size-scale 0.01 … arguments` (its stdout in a file of
    /// `directory`) and waits until it printed its listing: the process, the port the system
    /// chose (the first line names the URL) and what it printed (the last line before it
    /// serves names the manifest endpoint).
    static func startOrigin(
        _ arguments: [String], in directory: TemporaryDirectory
    ) async throws -> (origin: ChildProcess, port: Int, printed: String) {
        let log = directory.path + "/origin.out"
        let origin = try ChildProcess.spawn(
            try bench(), ["origin", "--port", "0", "--size-scale", "0.01", "--duration", "120s"] + arguments, stdout: .file(log))
        var printed = ""
        await eventually("bench origin printing its URL and the manifest endpoint (running: \(origin.isRunning), printed: \(printed))") {
            printed = String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self)
            return printed.contains("hash manifest") && printed.hasSuffix("\n")
        }
        do {
            let first = try #require(printed.split(separator: "\n").first, "bench origin printed nothing")
            let port = try #require(first.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }, "\(first)")
            return (origin, port, printed)
        } catch {
            origin.send(SIGKILL)
            throw error
        }
    }

    @Test func refusesABadFaultsFileWithExitStatus2AndSaysWhere() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try Self.write(
            #"{"rules": [{"path": "/a", "fault": {"type": "status", "code": 410}}, {"path": "/b", "fault": {"type": "status", "code": "x"}}]}"#,
            in: directory)
        let run = try await ChildProcess.run(
            try Self.bench(), ["origin", "--port", "0", "--faults", file, "--duration", "30s"], timeout: .seconds(60))
        let text = run.stderr
        #expect(run.status == 2)
        #expect(text.contains("--faults \(file)"), "\(text)")
        #expect(text.contains("rules[1].fault.code"), "\(text)")
    }

    /// The rules in the file apply from the first request.
    @Test func appliesTheFaultsFileFromTheStart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try Self.write(
            #"{"seed": 1, "rules": [{"id": "gone", "path": "/videos/online-only/**", "fault": {"type": "status", "code": 410}}]}"#,
            in: directory)
        let (origin, port, printed) = try await Self.startOrigin(["--faults", file], in: directory)
        defer { origin.send(SIGKILL) }

        // A connection per request: between two on one connection the test waits for the
        // cooperative pool, and a loaded run once held it past the origin's 30 s idle timeout
        // (the origin closed the connection; the second request got no answer).
        let gone = try RawHTTPConnection(port: port, timeoutSeconds: 30)
        try gone.request("GET", "/videos/online-only/master.m3u8")
        #expect(try await gone.readResponse()?.status == 410)
        let clear = try RawHTTPConnection(port: port, timeoutSeconds: 30)
        try clear.request("GET", "/videos/clear/master.m3u8")
        #expect(try await clear.readResponse()?.status == 200)

        #expect(printed.contains("fault rules from \(file): gone"), "\(printed)")
        origin.send(SIGTERM)
        #expect(await origin.exit() == .exited(0), "bench origin should stop cleanly on SIGTERM")
    }

    /// `--request-log FILE` writes every request as a JSON line; `--interface NAME=HOST:PORT`
    /// names the requests whose PROXY header gives that destination (the listener of `bench
    /// proxy --proxy-protocol`); a request without one is logged with no interface.
    @Test func theRequestLogNamesTheInterfaceOfEachRequest() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let requests = directory.path + "/requests.jsonl"
        let (origin, port, _) = try await Self.startOrigin(
            ["--interface", "wifi=127.0.0.2:9001", "--request-log", requests], in: directory)
        defer { origin.send(SIGKILL) }

        let proxied = try RawHTTPConnection(port: port, timeoutSeconds: 30)
        try proxied.send("PROXY TCP4 127.0.0.1 127.0.0.2 40000 9001\r\nGET /videos/clear/master.m3u8 HTTP/1.1\r\nHost: o\r\n\r\n")
        #expect(try await proxied.readResponse()?.status == 200)
        let direct = try RawHTTPConnection(port: port, timeoutSeconds: 30)
        try direct.request("GET", "/videos")
        #expect(try await direct.readResponse()?.status == 200)

        var lines: [[String: Any]] = []
        await eventually("both requests in \(requests)") {
            let text = String(decoding: FileManager.default.contents(atPath: requests) ?? Data(), as: UTF8.self)
            lines = text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            return lines.count == 2
        }
        let master = try #require(lines.first { $0["path"] as? String == "/videos/clear/master.m3u8" })
        #expect(master["interface"] as? String == "wifi" && master["status"] as? Int == 200, "\(master)")
        let listing = try #require(lines.first { $0["path"] as? String == "/videos" })
        #expect(listing["interface"] == nil, "\(listing)")
        origin.send(SIGTERM)
        #expect(await origin.exit() == .exited(0))

        let refused = try await ChildProcess.run(try Self.bench(), ["origin", "--interface", "wifi"], timeout: .seconds(60))
        #expect(refused.status == 2 && refused.stderr.contains("expected NAME=HOST:PORT"), "\(refused.stderr)")
    }
}
