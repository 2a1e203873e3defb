import Foundation
import TestSupport
import Testing
@testable import BenchCore

/// Real children through `ChildProcess.spawn`: exit statuses, signals, output files, the time
/// limit, the working directory, a missing executable, and no inherited descriptors.
@Suite(.timeLimit(.minutes(2))) struct ChildProcessTests {
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
        let run = try await ChildProcess.run("/bin/sleep", ["30"], timeout: .milliseconds(300))
        #expect(run.timedOut && run.termination == .signalled(SIGKILL), "killed by the time limit, not ended by itself")
        // Timed on a thread of its own: the time an awaiting test takes to be resumed on a
        // busy cooperative pool (20 s once, in a loaded test run) is not the time limit's.
        let (waited, elapsed) = try await OffPool.run { () throws(ChildProcessError) -> (ChildProcess.Outcome, Duration) in
            let started = ContinuousClock.now
            let waited = try ChildProcess.runWaiting("/bin/sleep", ["30"], timeout: .milliseconds(300))
            return (waited, ContinuousClock.now - started)
        }
        #expect(waited.timedOut && waited.termination == .signalled(SIGKILL))
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(20), "killed at its limit (\(elapsed))")
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

/// What the harness, the comparison and the benchmarks need of a child beyond files:
/// pipes, a process group, appended logs, PATH lookup, wait4's usage.
@Suite(.timeLimit(.minutes(2))) struct ChildProcessGroupAndPipeTests {
    /// Reads `descriptor` to end of file, giving up after 10 s without data; the waits
    /// hold a thread outside the cooperative pool.
    private func readAll(_ descriptor: Int32) async -> String {
        await OffPool.run {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            while poll(&poller, 1, 10_000) > 0 {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                bytes += chunk[..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Gone, or a zombie nobody reaped yet: no longer running.
    private func isGone(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(close, offsetBy: 2)] == "Z"
    }

    /// A line written on the stdin pipe comes back, changed by the child, on the stdout pipe.
    @Test func pipesRoundTripALine() async throws {
        signal(SIGPIPE, SIG_IGN)  // as the harness does: a pipe nobody reads fails the write, not the process
        let child = try ChildProcess.spawn(
            "/bin/sh", ["-c", #"read line; echo "got $line""#], stdin: .pipe, stdout: .pipe)
        let (input, output) = (try #require(child.input), try #require(child.output))
        defer { close(output) }
        let line = Array("hello pipe\n".utf8)
        #expect(write(input, line, line.count) == line.count)
        close(input)
        #expect(await readAll(output) == "got hello pipe\n")
        #expect(await child.exit() == .exited(0))
    }

    /// The harness's reason for the lock and close-on-exec: a child started after another
    /// does not hold the first one's stdin open, so closing it ends the first one's input.
    @Test func aLaterChildDoesNotInheritAnEarlierChildsPipe() async throws {
        let first = try ChildProcess.spawn("/bin/cat", [], stdin: .pipe, stdout: .pipe)
        let second = try ChildProcess.spawn("/bin/sleep", ["30"])
        defer { second.send(SIGKILL) }
        close(try #require(first.input))
        let output = try #require(first.output)
        defer { close(output) }
        #expect(await readAll(output) == "")
        await eventually("cat exiting at the end of its input") { first.termination == .exited(0) }
    }

    /// A kill of the group reaches the grandchild a shell started; without a group of its
    /// own, `signalGroup` sends nothing (it must never reach the caller's own group).
    @Test func aGroupKillReachesAGrandchild() async throws {
        let child = try ChildProcess.spawn(
            "/bin/sh", ["-c", "sleep 60 & echo $!; wait"], stdout: .pipe, ownProcessGroup: true)
        let output = try #require(child.output)
        defer { close(output) }
        let (ready, line) = await OffPool.run { () -> (Int32, String) in
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 10_000)
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            return (ready, String(decoding: buffer[..<max(0, count)], as: UTF8.self))
        }
        #expect(ready == 1)
        let grandchild = try #require(Int32(line.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(!isGone(grandchild))
        child.signalGroup(SIGKILL)
        await eventually("the group kill ending the shell") { child.termination == .signalled(SIGKILL) }
        await eventually("the grandchild \(grandchild) ending with the group kill") { isGone(grandchild) }

        let loner = try ChildProcess.spawn("/bin/sleep", ["30"])
        loner.signalGroup(SIGKILL)
        #expect(loner.isRunning, "signalGroup without a group of its own signalled something")
        loner.send(SIGKILL)
        #expect(await loner.exit() == .signalled(SIGKILL))
    }

    /// `.append` keeps what a file held; `.stdout` puts stderr in the same file; a name
    /// without `/` is found on PATH.
    @Test func appendedOutputKeepsEarlierRunsAndStderrCanJoinStdout() async throws {
        let path = NSTemporaryDirectory() + "deadzone-child-append-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        for run in 1...2 {
            let child = try ChildProcess.spawn("sh", ["-c", "echo out\(run); echo err\(run) >&2"],
                                               stdout: .append(path), stderr: .stdout)
            #expect(await child.exit() == .exited(0))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "out1\nerr1\nout2\nerr2\n")
    }

    /// wait4's usage once reaped: CPU time and a peak RSS.
    @Test func usageIsKeptOnceReaped() async throws {
        let child = try ChildProcess.spawn("/bin/sh", ["-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"])
        #expect(await child.exit() == .exited(0))
        let usage = try #require(child.usage)
        #expect(usage.userSeconds + usage.systemSeconds > 0, "100,000 shell iterations took no CPU time")
        #expect(usage.maxRSSBytes > 0)
    }

    /// The status a shell shows: the code, or 128 + the signal.
    @Test func shellStatusesReadAsAShellShowsThem() {
        #expect(ChildProcess.Termination.exited(0).shellStatus == 0)
        #expect(ChildProcess.Termination.exited(3).shellStatus == 3)
        #expect(ChildProcess.Termination.signalled(SIGKILL).shellStatus == 137)
        #expect(ChildProcess.Termination.signalled(SIGTERM).shellStatus == 143)
        #expect(ChildProcess.Termination.signalled(SIGKILL).status == 9)
        #expect(ChildProcess.Termination.lost.shellStatus == -1)
    }
}
