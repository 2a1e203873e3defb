import Foundation

/// Routes a request of the control API to the service that answers it: toxiproxy's
/// endpoints (`/proxies`, `/populate`, `/reset`, `/version`).
public struct ControlRouter: Sendable {
    public let toxiproxy: ToxiproxyService
    /// What `GET /version` says.
    public static let version = "2.12.0 (Deadzone's link conditioner, toxiproxy API)"

    public init(toxiproxy: ToxiproxyService) {
        self.toxiproxy = toxiproxy
    }

    /// The answer to `method` on `target` (a path, maybe with a query) with `body`.
    public func handle(method: String, target: String, body: [UInt8]) async -> APIResponse {
        let path = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
        let parts = path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        // toxiproxy 2.6 takes PATCH for the updates of a proxy or a toxic.
        let method = method == "PATCH" && (parts.count == 2 || parts.count == 4) ? "POST" : method
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
            default:
                return .error(Self.unrouted(method: method, path: path, parts: parts))
            }
        } catch {
            return .error(error)
        }
    }

    /// 405 for a known path asked with another method, 404 for an unknown one.
    private static func unrouted(method: String, path: String, parts: [String]) -> APIError {
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
            + "/proxies/NAME/toxics, /proxies/NAME/toxics/TOXIC, /populate, /reset, /version)")
    }
}
