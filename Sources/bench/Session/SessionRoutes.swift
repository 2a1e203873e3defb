import AppProtocol
import BenchCore
import ControlAPI
import ResilienceHarness

/// `bench session`'s own routes beside toxiproxy's and Deadzone's: `GET /session` (where
/// the app connects, where it keeps its downloads, what the origin serves, what was
/// announced), `POST /session/announce` (what the test made the app and the user do),
/// `POST /session/steps` (what the session plays to an app it launched, `SessionStepsAnswer`) and
/// origin fault rules (`SessionOriginFaults`) and `POST /session/end` (judge the session;
/// answers the verdicts once the report is written).
struct SessionRoutes: ControlRoutes {
    let driver: SessionDriver

    func prepare(method: String, parts: [String], body: [UInt8]) -> (@Sendable () async -> APIResponse)? {
        guard parts.first == "session" else { return nil }
        let driver = driver
        switch (method, parts.count, parts.dropFirst().first) {
        case ("GET", 1, nil):
            return { .json(Self.status(driver)) }
        case ("POST", 2, "announce"):
            guard let context = driver.context, driver.phase == .recording else {
                return { .error(APIError(409, "the session is \(driver.phase.rawValue): announcements are taken while it records")) }
            }
            guard !driver.launchesApp else {
                return { .error(APIError(409, "this session launched the app and speaks the protocol with it: play what the "
                    + "user and the OS do with POST /session/steps (scenario steps, docs/scenario-format.md); announcements "
                    + "are for an app that speaks no protocol")) }
            }
            let t = context.now  // stamped as it arrives, before it waits for the scenario
            return {
                do throws(APIError) {
                    return try await Self.announce(ControlAPI.JSONValue.parse(body), to: context, at: t, driver: driver)
                } catch {
                    return .error(error)
                }
            }
        case (_, 3, "origin") where parts[2] == "faults", (_, 4, "origin") where parts[2] == "faults":
            guard let context = driver.context, driver.phase == .recording else {
                return { .error(APIError(409, "the session is \(driver.phase.rawValue): origin fault rules change while it records")) }
            }
            switch (method, parts.count) {
            case ("GET", 3): return { await SessionOriginFaults.list(context) }
            case ("POST", 3): return { await SessionOriginFaults.add(body, to: context) }
            case ("DELETE", 4): let id = parts[3]; return { await SessionOriginFaults.remove(id, from: context) }
            case (_, 3): return { .error(APIError(405, "\(method) /session/origin/faults is not allowed: use GET or POST")) }
            default: return { .error(APIError(405, "\(method) /session/origin/faults/ID is not allowed: use DELETE")) }
            }
        case ("POST", 2, "steps"):
            guard driver.launchesApp else {
                return { .error(APIError(409, "the app speaks no protocol in this session: announce what the test made it "
                    + "do (POST /session/announce); steps play an app the session launched (bench session --agent, or --launch)")) }
            }
            guard let context = driver.context, driver.phase == .recording else {
                return { .error(APIError(409, "the session is \(driver.phase.rawValue): steps play while it records")) }
            }
            let text = String(decoding: body, as: UTF8.self)
            return { await SessionStepsAnswer.play(text, on: context, driver: driver) }
        case ("POST", 2, "end"):
            driver.requestEnd()
            return { .json(await driver.result()) }
        case (_, 1, nil):
            return { .error(APIError(405, "\(method) /session is not allowed: use GET")) }
        case (_, 2, "announce"?), (_, 2, "end"?), (_, 2, "steps"?):
            return { .error(APIError(405, "\(method) /\(parts.joined(separator: "/")) is not allowed: use POST")) }
        default:
            return { .error(.notFound("no such endpoint: \(method) /\(parts.joined(separator: "/")) (the session's: GET /session, "
                + "POST /session/announce, POST /session/steps, GET/POST /session/origin/faults, DELETE /session/origin/faults/ID, POST /session/end)")) }
        }
    }

    private static func status(_ driver: SessionDriver) -> ControlAPI.JSONValue {
        var fields: [String: ControlAPI.JSONValue] = [
            "phase": .string(driver.phase.rawValue), "app": .string(driver.launchesApp ? "protocol" : "silent"),
        ]
        fields["downloads"] = .object(driver.downloads.mapValues { .string($0) })
        if let context = driver.context {
            fields["storage"] = .string(context.storageDirectory)
            fields["interfaces"] = .object(Dictionary(uniqueKeysWithValues: context.conditioner.endpoints.map {
                ($0.key.rawValue, ControlAPI.JSONValue.string($0.value.description))
            }))
            fields["videos"] = .object(context.videoPaths.mapValues { .string($0) })
        }
        return .object(fields)
    }

    private static let events = ["downloadRequested", "userAction", "killed", "launched", "lifecycle"]

    /// Records one announcement; 400 naming the field for a bad one.
    private static func announce(
        _ body: ControlAPI.JSONValue, to context: ScenarioContext, at t: UInt64, driver: SessionDriver
    ) async throws(APIError) -> APIResponse {
        guard let fields = body.objectValue else {
            throw .badRequest("bad request body: expected a JSON object such as {\"event\": \"killed\", \"reason\": \"crash\"}, got \(body)")
        }
        func string(_ key: String, _ what: String) throws(APIError) -> String {
            guard let value = fields[key] else { throw .badRequest("missing required field: \(key) (\(what))") }
            guard let text = value.stringValue, !text.isEmpty else { throw .badRequest("\(key) must be \(what), got \(value)") }
            return text
        }
        func pid() throws(APIError) -> Int32? {
            guard let value = fields["pid"] else { return nil }
            guard let number = value.numberValue, number.rounded() == number, number > 0, number <= Double(Int32.max) else {
                throw .badRequest("pid must be the app's process id (a positive whole number), got \(value)")
            }
            return Int32(number)
        }
        func relaunch(_ key: String) throws(APIError) -> RelaunchKind {
            let text = try string(key, RelaunchKind.allCases.map(\.rawValue).joined(separator: ", "))
            guard let kind = RelaunchKind(rawValue: text) else {
                throw .badRequest("\(key) must be one of \(RelaunchKind.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(text)\"")
            }
            return kind
        }
        let event = try string("event", events.joined(separator: ", "))
        let known: Set<String> = switch event {
        case "downloadRequested": ["event", "video", "allowsCellular"]
        case "userAction": ["event", "action", "download"]
        case "killed": ["event", "reason", "pid"]
        case "launched": ["event", "after", "pid"]
        case "lifecycle": ["event", "foreground"]
        default: throw .badRequest("event must be one of \(events.joined(separator: ", ")), got \"\(event)\"")
        }
        try refuseUnknown(fields, known: known, what: "a \(event) announcement")
        do {
            switch event {
            case "downloadRequested":
                let video = try string("video", "the id of a video the origin serves (GET /session lists them)")
                guard let allows = fields["allowsCellular"]?.boolValue else {
                    throw APIError.badRequest("allowsCellular must be true or false: whether the user let this download use cellular")
                }
                let token = try await context.announceRequest(video, allowsCellular: allows, at: t)
                driver.announced(token, video: video)
                return .json(.object(["download": .string(token)]), status: 201)
            case "userAction":
                let text = try string("action", "pause, resume, cancel or delete")
                guard let action = UserAction(rawValue: text) else {
                    throw APIError.badRequest("action must be pause, resume, cancel or delete, got \"\(text)\"")
                }
                try await context.announceUser(action, try string("download", "the token its downloadRequested answered"), at: t)
            case "killed":
                await context.announceKill(reason: try relaunch("reason").rawValue, pid: try pid(), at: t)
            case "launched":
                await context.announceLaunch(after: try relaunch("after"), pid: try pid(), at: t)
            default:
                guard let foreground = fields["foreground"]?.boolValue else {
                    throw APIError.badRequest("foreground must be true or false")
                }
                await context.announceLifecycle(foreground: foreground, at: t)
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw .badRequest("\(error)")
        }
        return .json(.object(["recorded": .string(event), "t": .number(Double(t) / 1e9)]))
    }
}
