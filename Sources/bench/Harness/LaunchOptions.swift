import ArgumentParser
import Foundation
import ResilienceHarness

/// `--launch`, `--kill` and `--agent-listen`, shared by `bench` and `bench gate`: how the
/// app under test is started, reached and crashed when it is not a child process of
/// `bench` speaking on stdin/stdout (docs/app-protocol.md, over a socket).
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

    /// The launch the options describe for `app` (nil when none is given), listening
    /// already when --agent-listen is given; `agentGiven`: --agent or --misbehave was.
    func appLaunch(app: AppCommandLine, agentGiven: Bool) throws(SuiteRun.BadInput) -> AppLaunch? {
        guard launch != nil || kill != nil || agentListen != nil else { return nil }
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
        return AppLaunch(command: launch.map(AppLaunch.shell) ?? app, listener: listener, killCommand: kill)
    }
}
