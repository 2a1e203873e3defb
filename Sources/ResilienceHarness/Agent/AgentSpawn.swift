import BenchCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts the agent with posix_spawn: its stdin and stdout are pipes to the caller,
/// its stderr appends to a file. Both pipes are close-on-exec on the caller's side, so
/// no other child inherits them (a stray copy of the stdin pipe would keep the agent
/// from ever seeing end of input, one of stdout would hide its exit).
enum AgentSpawn {
    /// A started child and the caller's ends of its pipes, which the caller owns.
    struct Child {
        var pid: Int32
        /// Write end of the child's stdin.
        var stdin: Int32
        /// Read end of the child's stdout.
        var stdout: Int32
    }

    /// Spawns `executable` with `arguments` and the caller's environment.
    static func spawn(executable: String, arguments: [String], stderrPath: String) throws(AgentProcessError) -> Child {
        try spawning.withLock { _ throws(AgentProcessError) in
            try spawnLocked(executable: executable, arguments: arguments, stderrPath: stderrPath)
        }
    }

    /// Held from creating the pipes to closing the child's ends, so that two launches
    /// at once never hand each other's pipes to their children.
    private static let spawning = Mutex(())

    private static func spawnLocked(
        executable: String, arguments: [String], stderrPath: String
    ) throws(AgentProcessError) -> Child {
        let input = try makePipe()
        let output: [Int32]
        do { output = try makePipe() } catch {
            input.forEach { close($0) }
            throw error
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The caller ignores SIGPIPE (see AgentProcess); the app starts with it default
        // and no signal blocked, as a process started from a shell would, and in a process
        // group of its own: a kill (a crash) kills the whole app, the children of a shell
        // wrapper included, whose copy of stdout would otherwise outlive it.
        ChildProcess.setShellLikeSignals(&attributes, ownProcessGroup: true)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        // posix_spawnp: an executable named without a `/` is looked up on PATH, as a shell would.
        let status = posix_spawnp(&pid, executable, &actions, &attributes, argv, environ)
        close(input[0])
        close(output[1])
        guard status == 0 else {
            close(input[1])
            close(output[0])
            throw .io("cannot start \(executable): \(errorText(status))")
        }
        return Child(pid: pid, stdin: input[1], stdout: output[0])
    }

    /// A pipe, both ends close-on-exec: `[read, write]`.
    private static func makePipe() throws(AgentProcessError) -> [Int32] {
        var ends: [Int32] = [-1, -1]
        // pipe2(O_CLOEXEC) is not exported to Swift; `spawning` keeps other launches
        // from inheriting the ends before they are marked.
        guard pipe(&ends) == 0 else { throw .io("cannot create a pipe: \(errorText(errno))") }
        ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
        return ends
    }

    /// `strerror` of `code`.
    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
