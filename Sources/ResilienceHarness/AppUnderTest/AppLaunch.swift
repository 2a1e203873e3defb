import Foundation

/// How the harness starts the app, reaches it and kills it: today's child process on
/// stdin/stdout by default; `--launch 'CMD'` (a shell command instead of the app's
/// command line), `--agent-listen HOST:PORT` (the app connects over TCP, `listener`) and
/// `--kill 'CMD'` (a crash is this command, not SIGKILL of the launched process group).
///
/// Every launch (and kill command) gets `Variable`s in its environment: the scenario's
/// storage, how the previous process ended and, when listening, where to connect and the
/// token that proves the connection is this launch's.
public struct AppLaunch: Sendable {
    /// What is started: the app itself, or a command that starts it (`sh -c CMD`).
    public var command: AppCommandLine
    /// Where the app connects; nil: it speaks on the launched process's stdin/stdout.
    public var listener: AppListener?
    /// What a crash runs (`sh -c CMD`, with the `Variable`s and `DEADZONE_APP_PID`);
    /// nil: SIGKILL of the launched process group (and of the pid the app's hello gave,
    /// once checked to hold the app's connection).
    public var killCommand: String?
    /// Where the app keeps its storage when it is not a directory the harness can read in
    /// place, and the command that copies it before each read; nil: hello's `storage` is a
    /// local directory, read where it is.
    public var remoteStorage: RemoteStorage?
    /// The absolute path of the run's CA certificate (PEM) when the scenarios' origin
    /// serves HTTPS (`--https`): hello's `caFile` and the launch's `DEADZONE_CA_FILE`;
    /// nil over plain HTTP.
    public var caFile: String?

    /// A launch.
    public init(
        command: AppCommandLine, listener: AppListener? = nil, killCommand: String? = nil,
        remoteStorage: RemoteStorage? = nil
    ) {
        self.command = command
        self.listener = listener
        self.killCommand = killCommand
        self.remoteStorage = remoteStorage
    }

    /// `--app-storage DIR --storage-sync 'CMD'`: the app keeps each scenario's storage in
    /// `DIR/<the local copy's name>` as it sees its file system (a device, a simulator, an
    /// emulator), and `sh -c CMD` copies that directory (`DEADZONE_STORAGE`) into an empty
    /// local one (`DEADZONE_SYNC_TO`) before each read of the harness (`DEADZONE_READ`).
    public struct RemoteStorage: Sendable, Equatable {
        /// The directory, as the app sees it, under which each scenario's storage is named.
        public var appDirectory: String
        /// The copying command.
        public var syncCommand: String

        /// Storage under `appDirectory`, copied by `syncCommand`.
        public init(appDirectory: String, syncCommand: String) {
            self.appDirectory = appDirectory
            self.syncCommand = syncCommand
        }
    }

    /// The environment variables a launch and a kill command are given.
    public enum Variable {
        /// `HOST:PORT` to connect to (only with `--agent-listen`).
        public static let connect = "DEADZONE_CONNECT"
        /// The token the connection's first line must carry (only with `--agent-listen`).
        public static let token = "DEADZONE_TOKEN"
        /// The app's storage directory (also in hello's `storage`).
        public static let storage = "DEADZONE_STORAGE"
        /// How the previous process ended: `clean`, `crash`, `userForceQuit`, … (hello's `after`).
        public static let relaunch = "DEADZONE_RELAUNCH"
        /// The run's CA certificate (PEM) to trust, when the origin serves HTTPS (hello's `caFile`).
        public static let caFile = "DEADZONE_CA_FILE"
        /// For a kill command: the app's process id (its hello's `pid`, else the launched process's).
        public static let appPID = "DEADZONE_APP_PID"
        /// For a kill command: what the kill plays: `crash`, `memoryPressure`, `userForceQuit`,
        /// `rebootWhileSuspended` (the relaunch that follows is told the same), or `relaunch`.
        public static let killReason = "DEADZONE_KILL_REASON"
        /// For a storage-sync command: the empty local directory to copy the app's storage into.
        public static let syncTo = "DEADZONE_SYNC_TO"
        /// For a storage-sync command: the read it precedes: `kill`, `paused`, `removal`,
        /// `downloaded` or `inspected`.
        public static let read = "DEADZONE_READ"
    }

    /// `sh -c command`: a shell command line as a command.
    public static func shell(_ command: String) -> AppCommandLine {
        AppCommandLine(executable: "/bin/sh", arguments: ["-c", command])
    }

    /// How reports name the app when the run names none: the launch command, else the command line.
    public var description: String { command.description }
}
