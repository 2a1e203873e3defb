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
        let log = directory.path + "/origin.out"
        let origin = try ChildProcess.spawn(
            try Self.bench(), ["origin", "--port", "0", "--size-scale", "0.01", "--faults", file, "--duration", "120s"],
            stdout: .file(log))
        defer { origin.send(SIGKILL) }

        // The first line names the URL (the port was chosen by the system); the last line
        // before it serves names the manifest endpoint.
        var printed = ""
        await eventually("bench origin printing its URL and the manifest endpoint (running: \(origin.isRunning), printed: \(printed))") {
            printed = String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self)
            return printed.contains("hash manifest") && printed.hasSuffix("\n")
        }
        let first = try #require(printed.split(separator: "\n").first, "bench origin printed nothing")
        let port = try #require(first.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }, "\(first)")

        let client = try RawHTTPConnection(port: port, timeoutSeconds: 30)
        try client.request("GET", "/videos/online-only/master.m3u8")
        #expect(try await client.readResponse()?.status == 410)
        try client.request("GET", "/videos/clear/master.m3u8")
        #expect(try await client.readResponse()?.status == 200)

        #expect(printed.contains("fault rules from \(file): gone"), "\(printed)")
        origin.send(SIGTERM)
        #expect(await origin.exit() == .exited(0), "bench origin should stop cleanly on SIGTERM")
    }
}
