import Foundation
import Testing
@testable import BenchCore

/// Real children through `posix_spawn`: exit statuses, signals, output files, the time
/// limit, the working directory, a missing executable, and no inherited descriptors.
struct ChildProcessTests {
    @Test func collectsStdoutStderrAndTheExitStatus() async throws {
        let run = try await ChildProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(run.termination == .exited(3) && run.status == 3)
        #expect(run.stdout == "out\n" && run.stderr == "err\n")
        #expect(!run.timedOut)
    }

    @Test func aSignalIsReportedAsSuch() async throws {
        let child = try ChildProcess.spawn("/bin/sleep", ["30"])
        #expect(child.isRunning && child.termination == nil)
        child.send(SIGKILL)
        #expect(await child.exit() == .signalled(SIGKILL))
        #expect(child.termination == .signalled(SIGKILL), "the ending is remembered once reaped")
        child.send(SIGKILL)  // after the end: nothing to signal, no error
    }

    @Test func theTimeLimitKillsAChildThatRunsOn() async throws {
        let started = ContinuousClock.now
        let run = try await ChildProcess.run("/bin/sleep", ["30"], timeout: .milliseconds(300))
        #expect(run.timedOut && run.termination == .signalled(SIGKILL))
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test func runsInTheDirectoryItIsGiven() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("deadzone-cwd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await ChildProcess.run("/bin/pwd", [], directory: directory.path)
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == directory.resolvingSymlinksInPath().path)
    }

    @Test func aMissingExecutableIsAnErrorThatNamesIt() {
        #expect {
            _ = try ChildProcess.spawn("/nonexistent/tool", [])
        } throws: { error in
            "\(error)".contains("/nonexistent/tool") && "\(error)".contains("No such file")
        }
    }

    /// A descriptor the parent holds open without close-on-exec (a pipe's write end)
    /// does not reach the child: the parent's read sees end of file once it closes its
    /// own copy, even while the child still runs.
    @Test func theChildInheritsNoOtherDescriptor() async throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let child = try ChildProcess.spawn("/bin/sleep", ["30"])
        defer { child.send(SIGKILL) }
        close(ends[1])
        var byte: UInt8 = 0
        var count = read(ends[0], &byte, 1)
        while count < 0, errno == EINTR { count = read(ends[0], &byte, 1) }
        #expect(count == 0, "the child holds the pipe's write end open")
        let listing = try await ChildProcess.run("/bin/ls", ["/proc/self/fd"])
        let descriptors = listing.stdout.split(separator: "\n").compactMap { Int($0) }
        #expect(descriptors.allSatisfy { $0 <= 3 }, "ls saw \(descriptors) (3 is its own directory handle)")
    }
}
