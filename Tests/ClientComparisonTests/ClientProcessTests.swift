import Foundation
import TestSupport
import Testing
@testable import ClientComparison

/// Client processes: a shell in the work directory, a process group of their own, and
/// kills that reach everything they started.
@Suite(.timeLimit(.minutes(2))) struct ClientProcessTests {
    func directory() throws -> String {
        let path = NSTemporaryDirectory() + "deadzone-client-process-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The exit status once the process has ended (up to a minute); nil, with an issue, if it runs on.
    func waitForExit(_ process: ClientProcess, sourceLocation: SourceLocation = #_sourceLocation) async -> Int32? {
        var status: Int32?
        await eventually("the client process ending", sourceLocation: sourceLocation) {
            status = process.poll()
            return status != nil
        }
        return status
    }

    @Test func runsInTheWorkDirectoryWithItsOutputInFiles() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let process = try ClientProcess.launch(
            command: "pwd; echo oops >&2; exit 7", directory: dir, stdoutPath: dir + "/out", stderrPath: dir + "/err")
        #expect(await waitForExit(process) == 7)
        let out = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        #expect(URL(fileURLWithPath: out.trimmingCharacters(in: .whitespacesAndNewlines)).standardizedFileURL
            == URL(fileURLWithPath: dir).standardizedFileURL)
        #expect(try String(contentsOfFile: dir + "/err", encoding: .utf8) == "oops\n")
    }

    @Test func aKillReachesTheChildrenItStarted() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The shell starts a background child that writes its pid, then waits.
        let process = try ClientProcess.launch(
            command: "sleep 60 & echo $! > child.pid; wait", directory: dir, stdoutPath: dir + "/out", stderrPath: dir + "/err")
        var childPID: Int32?
        await eventually("the shell writing its child's pid") {
            childPID = (try? String(contentsOfFile: dir + "/child.pid", encoding: .utf8)).flatMap {
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            return childPID != nil
        }
        let child = try #require(childPID)
        #expect(process.poll() == nil)
        #expect(await process.killGroup() == 128 + 9)
        // The child was in the group: it is gone too (ESRCH), not left running.
        await eventually("the client's child \(child) ending with the kill") { kill(child, 0) != 0 }
    }

    @Test func killEveryGroupEndsEveryClientStillRunning() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let registry = ClientRegistry()
        let first = try ClientProcess.launch(
            command: "sleep 60", directory: dir, stdoutPath: dir + "/1", stderrPath: dir + "/1e", registry: registry)
        let second = try ClientProcess.launch(
            command: "sleep 60", directory: dir, stdoutPath: dir + "/2", stderrPath: dir + "/2e", registry: registry)
        registry.killEveryGroup()
        #expect(await waitForExit(first) == 137)
        #expect(await waitForExit(second) == 137)
    }
}
