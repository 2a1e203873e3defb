import Foundation

/// Routes a request of the control API to the service that answers it: toxiproxy's
/// endpoints (`/proxies`, `/populate`, `/reset`, `/version`) and Deadzone's own
/// (`/deadzone…`: `DeadzoneService`; its event stream is `eventStream(method:target:lastEventID:)`'s).
public struct ControlRouter: Sendable {
    public let toxiproxy: ToxiproxyService
    public let deadzone: DeadzoneService
    /// Routes of the command that runs the API, tried before the unknown-route answer.
    public let extra: (any ControlRoutes)?
    /// What `GET /version` says.
    public static let version = "2.12.0 (Deadzone's link conditioner, toxiproxy API)"

    public init(toxiproxy: ToxiproxyService, deadzone: DeadzoneService = DeadzoneService(), extra: (any ControlRoutes)? = nil) {
        self.toxiproxy = toxiproxy
        self.deadzone = deadzone
        self.extra = extra
    }

    /// What `GET /deadzone/events` asks: from which event, in which format.
    public struct EventStreamRequest: Sendable, Equatable {
        /// The first event's number; nil for only those to come (`from=now`).
        public var from: Int?
        /// Server-sent events (`text/event-stream`) rather than JSON lines.
        public var serverSent: Bool
    }

    /// The event stream `method` on `target` asks for: nil when it is not the stream's
    /// route; a 400 for a bad query. `?from=N` (default 0: every event kept) or
    /// `?from=now`; `?format=sse` or an `Accept: text/event-stream` for server-sent events,
    /// where `Last-Event-ID: N` resumes after event N.
    public func eventStream(method: String, target: String, accept: String?, lastEventID: String?)
        -> Result<EventStreamRequest, APIError>? {
        let (path, query) = Self.split(target)
        guard method == "GET", path.split(separator: "/") == ["deadzone", "events"] else { return nil }
        var request = EventStreamRequest(from: 0, serverSent: accept?.contains("text/event-stream") ?? false)
        for (key, value) in query {
            switch key {
            case "from" where value == "now": request.from = nil
            case "from":
                guard let from = Int(value), from >= 0 else {
                    return .failure(.badRequest("from must be an event number (0 or more) or now, got \(value)"))
                }
                request.from = from
            case "format" where value == "sse" || value == "jsonl": request.serverSent = value == "sse"
            case "format": return .failure(.badRequest("format must be sse or jsonl, got \(value)"))
            default: return .failure(.badRequest("unknown query parameter \(key) (known: from, format)"))
            }
        }
        if let lastEventID, query.allSatisfy({ $0.0 != "from" }) {
            guard let last = Int(lastEventID), last >= 0 else {
                return .failure(.badRequest("Last-Event-ID must be an event number, got \(lastEventID)"))
            }
            request.from = last + 1
        }
        return .success(request)
    }

    /// The path and the query's pairs of `target`.
    static func split(_ target: String) -> (path: String, query: [(String, String)]) {
        let halves = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = halves.first.map(String.init) ?? target
        let query: [(String, String)] = halves.count < 2 ? [] : halves[1].split(separator: "&").map { pair in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).removingPercentEncoding ?? String($0)
            }
            return (kv[0], kv.count > 1 ? kv[1] : "")
        }
        return (path, query)
    }

    /// The answer to `method` on `target` (a path, maybe with a query) with `body`.
    public func handle(method: String, target: String, body: [UInt8]) async -> APIResponse {
        await prepare(method: method, target: target, body: body)()
    }

    /// What must happen at once for `method` on `target`, done now on the caller's thread
    /// (Deadzone's interface and timeline changes reach the conditioner before this
    /// returns: a test's cut never waits for the cooperative pool), and the rest of the
    /// answer, to be awaited.
    public func prepare(method: String, target: String, body: [UInt8]) -> @Sendable () async -> APIResponse {
        let path = Self.split(target).path
        let parts = path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        switch (method, parts.count, parts.first) {
        case ("POST", 3, "deadzone") where parts[1] == "interfaces":
            return deadzone.change(interface: parts[2], body)
        case ("POST", 2, "deadzone") where parts[1] == "timeline":
            return deadzone.timeline(body)
        default:
            if let extra, let answer = extra.prepare(method: method, parts: parts, body: body) { return answer }
            return { await self.answer(method: method, path: path, parts: parts, body: body) }
        }
    }

    /// The answer of the routes with nothing to do at once: `parts` are `path`'s, decoded.
    private func answer(method: String, path: String, parts: [String], body: [UInt8]) async -> APIResponse {
        // toxiproxy 2.6 takes PATCH for the updates of a proxy or a toxic.
        let method = method == "PATCH" && parts.first == "proxies" && (parts.count == 2 || parts.count == 4) ? "POST" : method
        func parsed() throws(APIError) -> JSONValue { try JSONValue.parse(body) }
        do {
            switch (method, parts.count, parts.first) {
            case ("GET", 1, "version"):
                return .json(.object(["version": .string(Self.version)]))
            case ("POST", 1, "reset"):
                return await toxiproxy.reset()
            case ("POST", 1, "populate"):
                return await toxiproxy.populate(try parsed())
            case ("GET", 1, "proxies"):
                return toxiproxy.list()
            case ("POST", 1, "proxies"):
                return await toxiproxy.create(try parsed())
            case ("GET", 2, "proxies"):
                return toxiproxy.show(parts[1])
            case ("POST", 2, "proxies"):
                return await toxiproxy.update(parts[1], with: try parsed())
            case ("DELETE", 2, "proxies"):
                return await toxiproxy.delete(parts[1])
            case ("GET", 3, "proxies") where parts[2] == "toxics":
                return toxiproxy.toxics(of: parts[1])
            case ("POST", 3, "proxies") where parts[2] == "toxics":
                return await toxiproxy.addToxic(to: parts[1], try parsed())
            case ("GET", 4, "proxies") where parts[2] == "toxics":
                return toxiproxy.toxic(parts[3], of: parts[1])
            case ("POST", 4, "proxies") where parts[2] == "toxics":
                return await toxiproxy.updateToxic(parts[3], of: parts[1], try parsed())
            case ("DELETE", 4, "proxies") where parts[2] == "toxics":
                return await toxiproxy.deleteToxic(parts[3], of: parts[1])
            case ("GET", 1, "deadzone"):
                return await deadzone.status()
            default:
                return .error(Self.unrouted(method: method, path: path, parts: parts))
            }
        } catch {
            return .error(error)
        }
    }

    /// 405 for a known path asked with another method, 404 for an unknown one.
    private static func unrouted(method: String, path: String, parts: [String]) -> APIError {
        if parts.first == "deadzone" { return deadzoneUnrouted(method: method, path: path, parts: parts) }
        let isProxies = parts.first == "proxies"
        let hasToxics = parts.count > 2 && parts[2] == "toxics"
        let allowed: String? =
            if parts == ["version"] { "GET" }
            else if parts == ["reset"] || parts == ["populate"] { "POST" }
            else if isProxies && (parts.count == 1 || (parts.count == 3 && hasToxics)) { "GET, POST" }
            else if isProxies && (parts.count == 2 || (parts.count == 4 && hasToxics)) { "GET, POST, PATCH, DELETE" }
            else { nil }
        if let allowed { return APIError(405, "\(method) \(path) is not allowed: use \(allowed)") }
        return .notFound("no such endpoint: \(method) \(path) (the toxiproxy API: /proxies, /proxies/NAME, "
            + "/proxies/NAME/toxics, /proxies/NAME/toxics/TOXIC, /populate, /reset, /version; Deadzone's: /deadzone, "
            + "/deadzone/interfaces/NAME, /deadzone/timeline, /deadzone/events)")
    }

    private static func deadzoneUnrouted(method: String, path: String, parts: [String]) -> APIError {
        let allowed: String? =
            if parts == ["deadzone"] || parts == ["deadzone", "events"] { "GET" }
            else if parts == ["deadzone", "timeline"] || (parts.count == 3 && parts[1] == "interfaces") { "POST" }
            else { nil }
        if let allowed { return APIError(405, "\(method) \(path) is not allowed: use \(allowed)") }
        return .notFound("no such endpoint: \(method) \(path) (Deadzone's: GET /deadzone, POST /deadzone/interfaces/wifi "
            + "or /deadzone/interfaces/cellular, POST /deadzone/timeline, GET /deadzone/events)")
    }
}
