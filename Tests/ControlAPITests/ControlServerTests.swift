import BenchCore
import ControlAPI
import Foundation
import TestSupport
import Testing

/// The API over real sockets: toxiproxy's endpoints with their status codes and error
/// bodies, the bytes of a real upstream through a proxy and what its toxics do to them,
/// and the token.
@Suite(.timeLimit(.minutes(3))) struct ControlServerTests {
    /// An API on a free loopback port, an upstream, and the proxies stopped at the end.
    private func withAPI(token: String? = nil, size: Int = 20_000, _ body: (APIClient, BlobServer) async throws -> Void) async throws {
        let service = ToxiproxyService(allowsRemoteListen: false)
        let server = try await ControlServer.start(host: "127.0.0.1", port: 0, token: token, router: ControlRouter(toxiproxy: service))
        let upstream = try await BlobServer.start(size: size)
        do {
            try await body(APIClient(base: server.url), upstream)
        } catch {
            await server.stop(); await service.stopAll(); await upstream.stop()
            throw error
        }
        await server.stop(); await service.stopAll(); await upstream.stop()
    }

    private func errorBody(_ answer: APIClient.Answer) -> (String, Int)? {
        guard let fields = answer.json?.objectValue, let message = fields["error"]?.stringValue,
              let status = fields["status"]?.numberValue else { return nil }
        return (message, Int(status))
    }

    @Test func everyEndpointAnswersWithToxiproxysStatusAndBody() async throws {
        try await withAPI { api, upstream in
            #expect(try await api.call(.GET, "/version").json?.objectValue?["version"]?.stringValue?.contains("toxiproxy") == true)
            let created = try await api.call(.POST, "/proxies", #"{"name": "web", "listen": "127.0.0.1:0", "upstream": "\#(upstream.address)"}"#)
            #expect(created.status == 201)
            let listen = try #require(created.json?.objectValue?["listen"]?.stringValue)
            #expect(listen.hasPrefix("127.0.0.1:") && !listen.hasSuffix(":0"), "port 0 is answered with the port bound (\(listen))")
            #expect(created.json?.objectValue?["enabled"] == .bool(true) && created.json?.objectValue?["toxics"] == .array([]))

            let again = try await api.call(.POST, "/proxies", #"{"name": "web", "upstream": "\#(upstream.address)"}"#)
            #expect(again.status == 409 && errorBody(again)?.1 == 409 && errorBody(again)?.0.contains("proxy already exists") == true)
            #expect(try await api.call(.GET, "/proxies").json?.objectValue?.keys.sorted() == ["web"])
            #expect(try await api.call(.GET, "/proxies/web").status == 200)
            let missing = try await api.call(.GET, "/proxies/nowhere")
            #expect(missing.status == 404 && errorBody(missing)?.0 == "proxy not found: nowhere")
            #expect(try await api.call(.POST, "/proxies", #"{"name": "x"}"#).status == 400, "no upstream")
            #expect(try await api.call(.POST, "/proxies", "{not json").status == 400)
            let remote = try await api.call(.POST, "/proxies", #"{"name": "open", "listen": "0.0.0.0:0", "upstream": "\#(upstream.address)"}"#)
            #expect(remote.status == 400 && errorBody(remote)?.0.contains("not a loopback address") == true)

            let toxic = try await api.call(.POST, "/proxies/web/toxics", #"{"type": "latency", "attributes": {"latency": 50}}"#)
            #expect(toxic.status == 200 && toxic.json?.objectValue?["name"] == .string("latency_downstream"))
            #expect(try await api.call(.POST, "/proxies/web/toxics", #"{"type": "latency"}"#).status == 409)
            #expect(try await api.call(.POST, "/proxies/nowhere/toxics", #"{"type": "latency"}"#).status == 404)
            #expect(try await api.call(.POST, "/proxies/web/toxics", #"{"type": "bandwidth", "attributes": {"rate": -1}}"#).status == 400)
            #expect(try await api.call(.POST, "/proxies/web/toxics", #"{"type": "quake"}"#).status == 400)
            #expect(try await api.call(.GET, "/proxies/web/toxics").json == .array([toxic.json!]))
            let updated = try await api.call(.PATCH, "/proxies/web/toxics/latency_downstream", #"{"attributes": {"jitter": 5}}"#)
            #expect(updated.json?.objectValue?["attributes"] == .object(["latency": .number(50), "jitter": .number(5)]))
            #expect(try await api.call(.GET, "/proxies/web/toxics/nothing").status == 404)
            let shown = try await api.call(.GET, "/proxies/web").json?.objectValue
            #expect(shown?["deadzone"]?.objectValue?["link"]?.stringValue?.contains("50ms ±5ms") == true, "the link the toxics make")
            #expect(try await api.call(.DELETE, "/proxies/web/toxics/latency_downstream").status == 204)
            #expect(try await api.call(.DELETE, "/proxies/web/toxics/latency_downstream").status == 404)

            let disabled = try await api.call(.POST, "/proxies/web", #"{"enabled": false}"#)
            #expect(disabled.status == 200 && disabled.json?.objectValue?["enabled"] == .bool(false))
            #expect(disabled.json?.objectValue?["listen"]?.stringValue == listen, "a change of enabled alone keeps the port")
            _ = try await api.call(.POST, "/proxies/web/toxics", #"{"type": "timeout"}"#)
            #expect(try await api.call(.POST, "/reset").status == 204)
            let reset = try await api.call(.GET, "/proxies/web").json?.objectValue
            #expect(reset?["enabled"] == .bool(true) && reset?["toxics"] == .array([]))

            let populated = try await api.call(.POST, "/populate", """
                [{"name": "web", "listen": "\(listen)", "upstream": "\(upstream.address)"},
                 {"name": "db", "listen": "127.0.0.1:0", "upstream": "\(upstream.address)", "enabled": false}]
                """)
            #expect(populated.status == 201)
            #expect(populated.json?.objectValue?["proxies"].map { if case .array(let items) = $0 { items.count } else { 0 } } == 2)
            #expect(try await api.call(.GET, "/proxies").json?.objectValue?.keys.sorted() == ["db", "web"])
            #expect(try await api.call(.POST, "/populate", #"{"name": "db"}"#).status == 400, "a list, not an object")
            #expect(try await api.call(.DELETE, "/proxies/db").status == 204)
            #expect(try await api.call(.DELETE, "/proxies/db").status == 404)
            #expect(try await api.call(.PUT, "/proxies").status == 405)
            #expect(try await api.call(.GET, "/nowhere").status == 404)
        }
    }

    @Test func theBytesOfARealUpstreamGoThroughAndEachToxicActsOnThem() async throws {
        try await withAPI(size: 20_000) { api, upstream in
            let created = try await api.call(.POST, "/proxies", #"{"name": "web", "upstream": "\#(upstream.address)"}"#)
            let through = "http://" + (try #require(created.json?.objectValue?["listen"]?.stringValue)) + "/blob"
            #expect(try await APIClient.fetch(.GET, through).body == BlobServer.body(20_000), "byte for byte")

            _ = try await api.call(.POST, "/proxies/web/toxics", #"{"type": "latency", "attributes": {"latency": 400}}"#)
            let started = ContinuousClock.now
            #expect(try await APIClient.fetch(.GET, through).body.count == 20_000)
            #expect(ContinuousClock.now - started >= .milliseconds(400), "the answer waited for the latency added")
            _ = try await api.call(.DELETE, "/proxies/web/toxics/latency_downstream")

            _ = try await api.call(.POST, "/proxies/web/toxics", #"{"type": "limit_data", "attributes": {"bytes": 5000}}"#)
            let limited = try? await APIClient.fetch(.GET, through)
            #expect((limited?.body.count ?? 0) < 20_000, "the connection closed after 5000 bytes, before the whole body")
            _ = try await api.call(.DELETE, "/proxies/web/toxics/limit_data_downstream")

            _ = try await api.call(.POST, "/proxies/web", #"{"enabled": false}"#)
            // A raw connect: AsyncHTTPClient would retry a refused connection until its deadline.
            let listen = String(through.dropFirst("http://".count).dropLast("/blob".count))
            #expect(await APIClient.connects(to: listen) == false, "a disabled proxy refuses connections")
            _ = try await api.call(.POST, "/proxies/web", #"{"enabled": true}"#)
            #expect(try await APIClient.fetch(.GET, through).body.count == 20_000)

            _ = try await api.call(.POST, "/proxies/web/toxics", #"{"type": "reset_peer", "attributes": {"timeout": 0}}"#)
            await #expect(throws: (any Error).self, "reset_peer resets each connection") { _ = try await APIClient.fetch(.GET, through) }
        }
    }

    @Test func aTokenIsCheckedOnEveryRequest() async throws {
        try await withAPI(token: "s3cret") { api, _ in
            let refused = try await api.call(.GET, "/proxies")
            #expect(refused.status == 401 && errorBody(refused)?.0.contains("needs its token") == true)
            var bearer = api
            bearer.headers = [("Authorization", "Bearer s3cret")]
            #expect(try await bearer.call(.GET, "/proxies").status == 200)
            var wrong = api
            wrong.headers = [("Authorization", "Bearer s3cre")]
            #expect(try await wrong.call(.GET, "/proxies").status == 401)
            var basic = api
            basic.headers = [("Authorization", "Basic " + Data("deadzone:s3cret".utf8).base64EncodedString())]
            #expect(try await basic.call(.GET, "/version").status == 200)
        }
    }

    @Test func beyondLoopbackTheAPINeedsAToken() async throws {
        await #expect(throws: ControlServerError.self) {
            _ = try await ControlServer.start(host: "0.0.0.0", port: 0, token: nil, router: ControlRouter(toxiproxy: ToxiproxyService()))
        }
    }
}
