import BenchCore
import ControlAPI
import Foundation

/// `bench proxy --api`: toxiproxy's REST API, its proxies, Deadzone's own endpoints
/// over the profile's interfaces (when there is a profile), and how it stops.
struct ProxyAPI {
    let server: ControlServer
    let toxiproxy: ToxiproxyService
    let deadzone: DeadzoneService

    /// Starts the API on `address` (HOST:PORT, or PORT on 127.0.0.1) and prints where.
    /// `deadzone` drives the profile's conditioner once it is attached.
    static func start(_ address: String, token: String?, deadzone: DeadzoneService) async throws -> ProxyAPI {
        let parsed = APIAddress(parsing: address)!
        let toxiproxy = ToxiproxyService(allowsRemoteListen: token != nil)
        let server: ControlServer
        do {
            server = try await ControlServer.start(host: parsed.host, port: parsed.port, token: token,
                                                   router: ControlRouter(toxiproxy: toxiproxy, deadzone: deadzone))
        } catch { exitWithError("\(error)", code: 1) }
        print("toxiproxy API on \(server.url)\(token == nil ? "" : " (token required)"); proxies are made with POST /proxies")
        fflush(nil)
        return ProxyAPI(server: server, toxiproxy: toxiproxy, deadzone: deadzone)
    }

    /// Serves until Ctrl-C (or `limit`), then stops every proxy.
    func runUntilInterrupted(limit: Duration?) async {
        print("Ctrl-C stops")
        fflush(nil)
        await waitForInterrupt(orAfter: limit)
        await stop()
    }

    /// Stops answering, then every proxy, and says how many there were.
    func stop() async {
        await server.stop()
        let names = toxiproxy.names
        await toxiproxy.stopAll()
        print("stopped the API and \(names.count) prox\(names.count == 1 ? "y" : "ies")\(names.isEmpty ? "" : ": " + names.joined(separator: ", "))")
    }
}

/// `--api`'s value: `HOST:PORT`, `[V6]:PORT`, or `PORT` (on 127.0.0.1).
struct APIAddress {
    var host: String
    var port: Int

    init?(parsing text: String) {
        if let port = Int(text), (0...65535).contains(port) {
            host = "127.0.0.1"
            self.port = port
            return
        }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.host = host
        self.port = port
    }
}
