import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place in the package that starts a process (`posix_spawnp`); every other
/// spawner (the app under test, compared clients, benchmark children, ffmpeg, wrk, test
/// helpers) goes through `ChildProcess.spawn`.
extension ChildProcess {
    /// Where a child's standard input comes from.
    public enum Input: Sendable, Hashable {
        /// `/dev/null`: the child sees end of input at once.
        case null
        /// A pipe; the caller gets its write end as `input` and closes it.
        case pipe
    }

    /// Where a child's standard output or error goes.
    public enum Output: Sendable, Hashable {
        /// `/dev/null`.
        case null
        /// A file, created or truncated.
        case file(String)
        /// A file, created or appended to (logs shared by several runs).
        case append(String)
        /// A pipe; the caller gets its read end as `output` (stdout) or `errorOutput`
        /// (stderr) and closes it.
        case pipe
        /// For stderr only: wherever stdout goes (interleaved).
        case stdout
    }

    /// Starts `executable` with `arguments` and the caller's environment. A name without
    /// `/` is looked up on PATH, as a shell would. The child inherits no descriptor but 0,
    /// 1 and 2, starts with no signal blocked and SIGPIPE at its default; `directory` is
    /// its working directory; with `ownProcessGroup` it leads a process group of its own,
    /// which `signalGroup` reaches (a wrapper shell's children included) and a terminal's
    /// Ctrl-C does not. `environment` adds variables to the caller's environment (or
    /// replaces those of the same name).
    /// - Throws: `ChildProcessError` when it cannot start, with the system's reason.
    public static func spawn(
        _ executable: String, _ arguments: [String], stdin: Input = .null, stdout: Output = .null,
        stderr: Output = .null, directory: String? = nil, ownProcessGroup: Bool = false, environment: [String: String] = [:]
    ) throws(ChildProcessError) -> ChildProcess {
        // Held from creating the pipes to closing the child's ends: two launches at once
        // never hand each other's pipes to their children.
        try spawning.withLock { _ throws(ChildProcessError) in
            var pipes = Pipes()
            defer { pipes.closeChildEnds() }
            do throws(ChildProcessError) {
                if stdin == .pipe { pipes.input = try makePipe(executable) }
                if stdout == .pipe { pipes.output = try makePipe(executable) }
                if stderr == .pipe { pipes.error = try makePipe(executable) }
            } catch {
                pipes.closeParentEnds()
                throw error
            }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            if let input = pipes.input {
                posix_spawn_file_actions_adddup2(&actions, input[0], 0)
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            route(&actions, 1, stdout, pipe: pipes.output)
            route(&actions, 2, stderr, pipe: pipes.error)
            closeEveryOtherDescriptor(&actions)

            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            setShellLikeSignals(&attributes, ownProcessGroup: ownProcessGroup)

            // posix_spawn cannot change directory here (no addchdir in Swift's Glibc module):
            // coreutils' `env -C` does it, then runs the executable.
            let command = directory.map { ["/usr/bin/env", "-C", $0, "--", executable] } ?? [executable]
            let argv: [UnsafeMutablePointer<CChar>?] = (command + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            let status: Int32
            if environment.isEmpty {
                status = posix_spawnp(&pid, command[0], &actions, &attributes, argv, environ)
            } else {
                let merged = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
                let envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
                defer { envp.forEach { free($0) } }
                status = posix_spawnp(&pid, command[0], &actions, &attributes, argv, envp)
            }
            guard status == 0 else {
                pipes.closeParentEnds()
                throw ChildProcessError(executable: executable, reason: String(cString: strerror(status)))
            }
            return ChildProcess(
                pid: pid, executable: executable, ownProcessGroup: ownProcessGroup,
                input: pipes.input?[1], output: pipes.output?[0], errorOutput: pipes.error?[0])
        }
    }

    /// The child closes every descriptor above 2 before it runs the executable. With
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later, declared only
    /// under `_GNU_SOURCE`, so looked up by name) the child closes them itself, so a
    /// descriptor another thread opens without close-on-exec between this call and the
    /// spawn is closed too; without it, the descriptors `/proc/self/fd` lists now are.
    private static func closeEveryOtherDescriptor(_ actions: inout posix_spawn_file_actions_t) {
        if let closeFrom = closeFromAction, closeFrom(&actions, 3) == 0 { return }
        let inherited = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
        for fd in inherited where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
    }

    private typealias CloseFromAction = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, when the C library has it.
    private static let closeFromAction: CloseFromAction? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            return nil
        }
        return unsafeBitCast(symbol, to: CloseFromAction.self)
        #else
        return nil
        #endif
    }()

    /// Serialises every spawn of this process (see `spawn`).
    private static let spawning = Mutex(())

    /// Points descriptor `target` (1 or 2) where `output` says.
    private static func route(_ actions: inout posix_spawn_file_actions_t, _ target: Int32, _ output: Output, pipe: [Int32]?) {
        switch output {
        case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        case .append(let path): posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        case .pipe: posix_spawn_file_actions_adddup2(&actions, pipe![1], target)
        case .stdout: posix_spawn_file_actions_adddup2(&actions, 1, target)
        }
    }

    /// The child starts as if from a shell: no signal blocked, SIGPIPE at its default
    /// (the bench itself ignores it); with `ownProcessGroup`, in a process group of its own.
    private static func setShellLikeSignals(_ attributes: inout posix_spawnattr_t, ownProcessGroup: Bool) {
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
    }

    /// A pipe, both ends close-on-exec: `[read, write]`. pipe2(O_CLOEXEC) is not exported
    /// to Swift; `spawning` keeps other launches from inheriting the ends before they are marked.
    private static func makePipe(_ executable: String) throws(ChildProcessError) -> [Int32] {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw ChildProcessError(executable: executable, reason: "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
        return ends
    }

    /// The pipes of one spawn, `[read, write]` each.
    private struct Pipes {
        var input: [Int32]?
        var output: [Int32]?
        var error: [Int32]?

        /// After the spawn (or its failure) the child's ends are the child's alone.
        func closeChildEnds() {
            if let input { close(input[0]) }
            for pipe in [output, error].compactMap({ $0 }) { close(pipe[1]) }
        }

        func closeParentEnds() {
            if let input { close(input[1]) }
            for pipe in [output, error].compactMap({ $0 }) { close(pipe[0]) }
        }
    }
}
