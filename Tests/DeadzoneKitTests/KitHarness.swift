@testable import DeadzoneKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The harness's side of a pipe: lines go to a `CommandLoop` as the harness would send
/// them, and what the loop writes is read back as JSON objects.
// @unchecked: `reader` is used by the one test that owns the pipe, on its own thread, one
// call after another; `loop` is thread-safe as the kit uses it.
final class KitPipe: @unchecked Sendable {
    let loop: CommandLoop
    private var reader: LineReader
    private let descriptors: [Int32]

    init(app: any DeadzoneApp) {
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "pipe: \(String(cString: strerror(errno)))")
        descriptors = ends
        reader = LineReader(descriptor: ends[0])
        loop = CommandLoop(app: app, writer: LineWriter(descriptor: ends[1], isSocket: false))
    }

    deinit { descriptors.forEach { close($0) } }

    /// Sends one command line (the object as JSON) and returns what the loop decided.
    @discardableResult
    func send(_ command: [String: Any]) -> CommandLoop.Outcome {
        let data = try! JSONSerialization.data(withJSONObject: command)
        return loop.handle(String(decoding: data, as: UTF8.self))
    }

    /// The next line the loop (or the app's events) wrote; blocks until one comes.
    func next() throws -> [String: Any] {
        guard let line = reader.next() else { throw KitTestFailure("the pipe ended") }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw KitTestFailure("not a JSON object: \(line)")
        }
        return object
    }

    /// Sends hello (protocol 1) and reads its reply and the launched event.
    func hello(after: String = "clean") throws -> (reply: [String: Any], launched: [String: Any]) {
        send(["type": "command", "id": 1, "name": "hello", "protocol": 1, "storage": "/tmp/s", "after": after])
        return (try next(), try next())
    }
}

struct KitTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// An app that records the calls it gets and answers as told.
// @unchecked: the kit calls it on the test's own thread (`KitPipe.send` runs `handle` there),
// except `prepareForBackground`, `cancel` and `delete`, which touch only `record` (under
// `lock`), `backgroundGate` (a semaphore) and `holdsBackground` (set before the command, and
// the thread's start orders it).
final class RecordingApp: DeadzoneApp, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    var calls: [String] { lock.withLock { recorded } }
    private var launchesSeen: [Launch] = []
    var launches: [Launch] { lock.withLock { launchesSeen } }
    var events: DeadzoneEvents?
    var lastRequest: DownloadRequest?
    var lastPath: [NetworkInterface] = []
    var downloadID = "d1"
    var inspection = Inspection(known: true, state: .downloaded, playable: true, package: "/tmp/s/p/master.m3u8")
    /// prepareForBackground waits for this before it answers.
    let backgroundGate = DispatchSemaphore(value: 0)
    var holdsBackground = false

    private func record(_ call: String) { lock.withLock { recorded.append(call) } }

    func launch(_ launch: Launch, events: DeadzoneEvents) throws -> AppDescription {
        record("launch \(launch.storage) \(launch.after.rawValue)")
        lock.withLock { launchesSeen.append(launch) }
        self.events = events
        return AppDescription(name: "recording 1.0", capabilities: [.pause, .inspect, .licenses])
    }
    func didLaunch() { record("didLaunch") }
    func setPath(_ interfaces: [NetworkInterface]) throws {
        lastPath = interfaces
        record("setPath \(interfaces.map(\.kind.rawValue))")
    }
    func setForeground(_ foreground: Bool) throws { record("setForeground \(foreground)") }
    func prepareForBackground() throws -> [String: String] {
        record("prepareForBackground")
        // blocking-ok: the kit calls prepareForBackground on a thread of its own (CommandLoop), never on the pool
        if holdsBackground { backgroundGate.wait() }
        return ["d1": "the license server did not answer"]
    }
    func setAllowsCellular(_ allowed: Bool) throws { record("setAllowsCellular \(allowed)") }
    func request(_ request: DownloadRequest) throws -> String {
        lastRequest = request
        record("request \(request.video.id)")
        return downloadID
    }
    func pause(download: String) throws { throw DeadzoneRefusal("no such download") }
    func resume(download: String) throws { record("resume \(download)") }
    func cancel(download: String) throws { record("cancel \(download)") }
    func delete(download: String) throws { record("delete \(download)") }
    func inspect(download: String) throws -> Inspection { inspection }
    func shutdown() { record("shutdown") }
}
