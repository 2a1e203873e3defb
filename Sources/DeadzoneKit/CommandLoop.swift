import Foundation

/// Turns the harness's lines into calls on the app and writes their replies. One line at
/// a time, on the kit's command thread; `prepareForBackground`, `cancel` and `delete` are
/// answered from a thread of their own.
// @unchecked: `launched` is the only mutable state, read and written on the command thread
// alone (`handle` and `hello`); the threads `handle` starts use only `app` (Sendable),
// `writer` and `events` (each behind its own lock).
final class CommandLoop: @unchecked Sendable {
    enum Outcome: Equatable { case goOn, exit(Int32) }

    private let app: any DeadzoneApp
    private let writer: LineWriter
    let events: DeadzoneEvents
    /// Set by hello (on the command thread only).
    private var launched = false

    init(app: any DeadzoneApp, writer: LineWriter) {
        self.app = app
        self.writer = writer
        events = DeadzoneEvents(writer: writer)
    }

    func handle(_ line: String) -> Outcome {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)), let message = object as? [String: Any] else {
            diagnose("not a JSON object, ignored: \(line.prefix(200))")
            return .goOn
        }
        if message["type"] as? String == "refused" {
            diagnose("the harness refused the connection: \(message["error"] as? String ?? "")")
            return .exit(2)
        }
        guard message["type"] as? String == "command", let id = message["id"] as? Int, let name = message["name"] as? String else {
            diagnose("not a command, ignored: \(line.prefix(200))")
            return .goOn
        }
        let fields = Fields(message)
        if name == "hello" { return hello(id, fields) }
        guard launched else {
            refuse(id, "hello first: no command is taken before it")
            return .goOn
        }
        switch name {
        case "shutdown":
            app.shutdown()
            answer(id) { [:] }
            return .exit(0)
        case "prepareForBackground", "cancel", "delete":
            let thread = Thread { [self] in dispatch(id, name, fields) }
            thread.name = "deadzone-\(name)"
            thread.start()
        default:
            dispatch(id, name, fields)
        }
        return .goOn
    }

    private func hello(_ id: Int, _ fields: Fields) -> Outcome {
        let version = fields.int("protocol")
        guard version == DeadzoneKit.protocolVersion else {
            refuse(id, "this app speaks protocol \(DeadzoneKit.protocolVersion), not \(version.map(String.init) ?? "none")")
            return .exit(2)
        }
        guard let storage = fields.string("storage"), let after = fields.string("after").flatMap(RelaunchKind.init) else {
            refuse(id, "hello lacks storage or a known after")
            return .goOn
        }
        let description: AppDescription
        do {
            description = try app.launch(Launch(storage: storage, after: after, caFile: fields.string("caFile")), events: events)
        } catch {
            refuse(id, "\(error)")
            return .goOn
        }
        launched = true
        answer(id) {
            ["protocol": DeadzoneKit.protocolVersion, "app": description.name,
             "capabilities": description.capabilities.map(\.rawValue).sorted(), "pid": Int(getpid())]
        }
        do { try events.launched(after: after) } catch { diagnose("\(error)") }
        app.didLaunch()
        return .goOn
    }

    private func dispatch(_ id: Int, _ name: String, _ fields: Fields) {
        answer(id) {
            switch name {
            case "setPath":
                try app.setPath(try fields.interfaces())
            case "setForeground":
                try app.setForeground(try fields.required(fields.bool("foreground"), "foreground"))
            case "setAllowsCellular":
                try app.setAllowsCellular(try fields.required(fields.bool("allowed"), "allowed"))
            case "prepareForBackground":
                let unfinished = try app.prepareForBackground()
                guard !unfinished.keys.contains("") else { throw KitError.invalid("prepareForBackground named an empty download id") }
                return ["unfinished": unfinished]
            case "request":
                let download = try app.request(try fields.request())
                try DeadzoneEvents.check(download: download)
                return ["download": download]
            case "pause": try app.pause(download: try fields.download())
            case "resume": try app.resume(download: try fields.download())
            case "cancel": try app.cancel(download: try fields.download())
            case "delete": try app.delete(download: try fields.download())
            case "inspect":
                let download = try fields.download()
                return ["inspection": try Self.encode(try app.inspect(download: download), of: download)]
            default:
                throw DeadzoneRefusal("unknown command \(name)")
            }
            return [:]
        }
    }

    /// Replies to `id` with what `body` returns, or with its error.
    private func answer(_ id: Int, _ body: () throws -> [String: Any]) {
        do {
            var reply = try body()
            reply["type"] = "reply"
            reply["id"] = id
            try writer.write(reply)
        } catch let error as KitError {
            if case .harnessGone = error { return diagnose("\(error)") }
            diagnose("\(error)")
            refuse(id, "\(error)")
        } catch {
            refuse(id, "\(error)")
        }
    }

    private func refuse(_ id: Int, _ why: String) {
        do { try writer.write(["type": "reply", "id": id, "error": why]) } catch { diagnose("\(error)") }
    }

    static func encode(_ inspection: Inspection, of download: String) throws(KitError) -> [String: Any] {
        var fields: [String: Any] = ["download": download, "known": inspection.known, "playable": inspection.playable]
        if let state = inspection.state { fields["state"] = state.rawValue }
        if let reason = inspection.unplayableReason { fields["unplayableReason"] = reason }
        if let expiration = inspection.licenseExpiration { fields["licenseExpiration"] = rfc3339(expiration) }
        if let package = inspection.package {
            guard package.hasPrefix("/") else { throw .invalid("inspection of \(download): package \(package) is not an absolute path") }
            fields["package"] = package
        }
        if let files = inspection.files {
            guard files >= 0 else { throw .invalid("inspection of \(download): files \(files) is negative") }
            fields["files"] = files
        }
        if let hashes = inspection.segmentHashes { fields["segmentHashes"] = hashes }
        if let complete = inspection.packageComplete { fields["packageComplete"] = complete }
        return fields
    }
}
