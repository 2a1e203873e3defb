/// A proxy as a request describes it (`POST /proxies`, `/populate`, an update), with
/// toxiproxy's defaults: `enabled` true, `listen` `127.0.0.1:0` (a free port).
struct ProxyRequest: Sendable, Equatable {
    var name: String
    var listenText: String
    var upstreamText: String
    var enabled: Bool

    static let defaultListen = "127.0.0.1:0"

    /// A new proxy from `body` (for a create or an item of `/populate`).
    static func create(_ body: JSONValue) throws(APIError) -> ProxyRequest {
        guard let fields = body.objectValue else {
            throw .badRequest("bad request body: expected a JSON object with name, listen and upstream, got \(body)")
        }
        try refuseUnknown(fields)
        guard let name = try string(fields["name"], "name"), !name.isEmpty else { throw .badRequest("missing required field: name") }
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
            throw .badRequest("name \"\(name)\" may hold only letters, digits, '-', '_' and '.' (it is a path component of the API)")
        }
        guard let upstream = try string(fields["upstream"], "upstream"), !upstream.isEmpty else {
            throw .badRequest("missing required field: upstream (HOST:PORT the proxy forwards to)")
        }
        let listen = try string(fields["listen"], "listen") ?? defaultListen
        return ProxyRequest(name: name, listenText: listen.isEmpty ? defaultListen : listen, upstreamText: upstream,
                            enabled: try bool(fields["enabled"], "enabled") ?? true)
    }

    /// `entry` changed by `body`: the fields it names; the others stay.
    static func update(_ entry: ToxiproxyService.Entry, with body: JSONValue) throws(APIError) -> ProxyRequest {
        guard let fields = body.objectValue else {
            throw .badRequest("bad request body: expected a JSON object with listen, upstream or enabled, got \(body)")
        }
        try refuseUnknown(fields)
        if let name = try string(fields["name"], "name"), name != entry.name {
            throw .badRequest("a proxy's name cannot change (\(entry.name)): create another and delete this one")
        }
        var request = ProxyRequest(name: entry.name, listenText: entry.instance.listen.description,
                                   upstreamText: entry.upstreamText, enabled: entry.enabled)
        if let listen = try string(fields["listen"], "listen") { request.listenText = listen.isEmpty ? defaultListen : listen }
        if let upstream = try string(fields["upstream"], "upstream") {
            guard !upstream.isEmpty else { throw .badRequest("upstream must not be empty (HOST:PORT the proxy forwards to)") }
            request.upstreamText = upstream
        }
        if let enabled = try bool(fields["enabled"], "enabled") { request.enabled = enabled }
        return request
    }

    /// Whether it names the same listener and upstream as `entry` (so a change of
    /// `enabled` alone keeps the running proxy, its port and its connections).
    func matches(_ entry: ToxiproxyService.Entry) -> Bool {
        guard upstreamText == entry.upstreamText else { return false }
        if listenText == entry.instance.listen.description { return true }
        // A port 0 asks for any port: the one it has will do.
        let bound = entry.instance.listen
        return listenText == "\(bound.host):0" || listenText == "[\(bound.host)]:0"
    }

    private static let known: Set<String> = ["name", "listen", "upstream", "enabled", "toxics", "deadzone"]

    private static func refuseUnknown(_ fields: [String: JSONValue]) throws(APIError) {
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw .badRequest("a proxy has no field \(unknown): its fields are name, listen, upstream and enabled")
        }
    }

    private static func string(_ value: JSONValue?, _ field: String) throws(APIError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw .badRequest("\(field) must be a string (got \(other))")
        }
    }

    private static func bool(_ value: JSONValue?, _ field: String) throws(APIError) -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case let other?: throw .badRequest("\(field) must be true or false (got \(other))")
        }
    }
}
