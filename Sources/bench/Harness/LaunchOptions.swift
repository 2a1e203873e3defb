import ArgumentParser
import Foundation
import ResilienceHarness

/// `--launch`, `--kill`, `--agent-listen`, `--app-storage` and `--storage-sync`, shared by
/// `bench` and `bench gate`: how the app under test is started, reached and crashed when
/// it is not a child process of `bench` speaking on stdin/stdout, and how its storage is
/// read when it is not a local directory (docs/app-protocol.md, over a socket).
struct LaunchOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A shell command that starts the app (instead of --agent), run again for every relaunch.",
        discussion: "Run with sh -c, in a process group of its own, with DEADZONE_STORAGE, DEADZONE_RELAUNCH (clean, crash, userForceQuit, …) and, with --agent-listen, DEADZONE_CONNECT and DEADZONE_TOKEN in its environment. Without --agent-listen the app speaks on its stdin/stdout.",
        valueName: "command"))
    var launch: String?

    @Option(help: ArgumentHelp(
        "A shell command that crashes the app (default: SIGKILL of the launched process group).",
        discussion: "Given the launch's variables, DEADZONE_APP_PID and DEADZONE_KILL_REASON (crash, userForceQuit, rebootWhileSuspended, …); it must exit 0 within 30 s, and the app must be gone 10 s later, or the scenario ends with an error.",
        valueName: "command"))
    var kill: String?

    @Option(name: .customLong("agent-listen"), help: ArgumentHelp(
        "Listen here for the app's connection instead of talking on its stdin/stdout (port 0: any free port).",
        discussion: "The app connects to DEADZONE_CONNECT and sends {\"type\":\"connect\",\"token\":\"<DEADZONE_TOKEN>\"} first; the address is printed on stderr.",
        valueName: "host:port"))
    var agentListen: String?

    @Option(name: .customLong("storage-sync"), help: ArgumentHelp(
        "A shell command that copies the app's storage into a local directory before each read of the harness.",
        discussion: "For an app whose storage the harness cannot read in place (a device, an emulator): run with sh -c before every read (after a kill, while paused, after a removal, of each package), given DEADZONE_STORAGE (the app's storage, as the app sees it), DEADZONE_SYNC_TO (an empty local directory to fill) and DEADZONE_READ (kill, paused, removal, downloaded, inspected); it must exit 0 within 60 s, or the scenario ends with an error. Needs --app-storage.",
        valueName: "command"))
    var storageSync: String?

    @Option(name: .customLong("app-storage"), help: ArgumentHelp(
        "The directory, as the app sees it, under which each scenario's storage is named (with --storage-sync).",
        discussion: "Hello's storage and DEADZONE_STORAGE become DIR/deadzone-<scenario>-<pid>-<seed>-<n> (n counts the scenarios played); the harness does not remove it (the app's side is the launch tooling's).",
        valueName: "directory"))
    var appStorage: String?

    /// The launch the options describe for `app` (nil when none is given), listening
    /// already when --agent-listen is given; `agentGiven`: --agent or --misbehave was.
    func appLaunch(app: AppCommandLine, agentGiven: Bool) throws(SuiteRun.BadInput) -> AppLaunch? {
        guard launch != nil || kill != nil || agentListen != nil || storageSync != nil || appStorage != nil else { return nil }
        let remote = try remoteStorage()
        if launch != nil, agentGiven {
            throw SuiteRun.BadInput(description: "--launch starts the app instead of --agent or --misbehave: give one of them")
        }
        if let launch, launch.trimmingCharacters(in: .whitespaces).isEmpty {
            throw SuiteRun.BadInput(description: "--launch is empty: give the shell command that starts the app")
        }
        var listener: AppListener?
        if let agentListen {
            do { listener = try AppListener.listen(agentListen) } catch { throw SuiteRun.BadInput(description: error.description) }
            FileHandle.standardError.writeSurvivingSignals(Data("bench: apps connect to \(listener!.address)\n".utf8))
        }
        return AppLaunch(
            command: launch.map(AppLaunch.shell) ?? app, listener: listener, killCommand: kill, remoteStorage: remote)
    }

    /// --app-storage and --storage-sync, which come together.
    private func remoteStorage() throws(SuiteRun.BadInput) -> AppLaunch.RemoteStorage? {
        switch (appStorage, storageSync) {
        case (nil, nil):
            return nil
        case (nil, .some):
            throw SuiteRun.BadInput(description: "--storage-sync needs --app-storage: give the directory, as the app sees it, "
                + "under which its storage lives, so that the harness can tell it where and map the paths it names")
        case (.some, nil):
            throw SuiteRun.BadInput(description: "--app-storage needs --storage-sync: the harness reads the app's storage as "
                + "a local directory, so give the command that copies it there (e.g. 'adb pull \"$DEADZONE_STORAGE\"/. \"$DEADZONE_SYNC_TO\"')")
        case let (directory?, command?):
            guard directory.hasPrefix("/") else {
                throw SuiteRun.BadInput(description: "--app-storage \(directory) is not an absolute path: give the directory as the app sees it, from /")
            }
            guard !command.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw SuiteRun.BadInput(description: "--storage-sync is empty: give the shell command that copies the app's storage")
            }
            return AppLaunch.RemoteStorage(appDirectory: directory, syncCommand: command)
        }
    }
}
