import Foundation
import ResilienceHarness

/// A tiny app in Python 3, written by a test into a temporary directory and run as the
/// app under test (`--agent 'python3 fake_app.py MODE'`): it speaks just enough of the
/// protocol to reach the break its `mode` names, and breaks it only in a scenario
/// whose storage path contains `probe-break` (so a second scenario of the same run
/// shows that the rest of a run goes on).
///
/// Modes: `garbage` (a line that is not JSON), `fraction` (progress 1.5), `unknown-id`
/// (a reply to id 999), `no-hello` (never answers hello), `version` (hello with
/// protocol 2), `caps:a,b` (declares only those capabilities, breaks nothing), `stderr`
/// (writes a line on its stderr at each hello, breaks nothing), `good`.
struct FakeApp {
    let directory: String
    var script: String { directory + "/fake_app.py" }

    static let source = #"""
        import json, os, sys, time
        mode = sys.argv[1]
        caps = ["cancelAndDelete", "cellularSetting", "crashRecovery", "inspect", "licenses", "pause",
                "relaunchAfterForceQuit", "rentals"]
        if mode.startswith("caps:"):
            caps = [c for c in mode[5:].split(",") if c]
        def out(obj):
            sys.stdout.write(json.dumps(obj) + "\n")
            sys.stdout.flush()
        storage = ""
        for line in sys.stdin:
            cmd = json.loads(line)
            name, ident = cmd["name"], cmd["id"]
            if name == "hello":
                storage = cmd["storage"]
                if mode == "stderr":
                    sys.stderr.write("fake app: a line on stderr after hello (%s)\n" % cmd["after"])
                    sys.stderr.flush()
                if mode == "storage":
                    sys.stderr.write("storage: %s\n" % storage)
                    sys.stderr.flush()
                if mode == "no-hello":
                    continue
                out({"type": "reply", "id": ident, "protocol": 2 if mode == "version" else 1,
                     "app": "fake " + mode, "capabilities": caps})
                out({"type": "event", "t": time.monotonic_ns(), "name": "launched", "pid": os.getpid(),
                     "after": cmd["after"]})
            elif name == "request":
                out({"type": "reply", "id": ident, "download": "d1"})
                out({"type": "event", "t": time.monotonic_ns(), "name": "progress", "download": "d1",
                     "selection": "video", "fraction": 0.25})
                if "probe-break" in storage:
                    if mode == "garbage":
                        out_text = "downloading 25 %"
                        sys.stdout.write(out_text + "\n"); sys.stdout.flush()
                    elif mode == "fraction":
                        out({"type": "event", "t": time.monotonic_ns(), "name": "progress", "download": "d1",
                             "selection": "video", "fraction": 1.5})
                    elif mode == "unknown-id":
                        out({"type": "reply", "id": 999})
            elif name == "shutdown":
                out({"type": "reply", "id": ident})
                break
            else:
                out({"type": "reply", "id": ident})
        """#

    /// Writes the script into a new temporary directory.
    init() throws {
        directory = NSTemporaryDirectory() + "deadzone-fake-app-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.source.write(toFile: directory + "/fake_app.py", atomically: true, encoding: .utf8)
    }

    /// The app's command line in `mode`.
    func app(_ mode: String) -> AppCommandLine {
        AppCommandLine(executable: "python3", arguments: [script, mode])
    }

    /// The command line as `--agent` takes it.
    func agentArgument(_ mode: String) -> String { "python3 \(script) \(mode)" }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
