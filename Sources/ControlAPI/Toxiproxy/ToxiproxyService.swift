import BenchCore
import LinkConditioner
import Synchronization

/// toxiproxy's API over Deadzone's link conditioner: named proxies, each a
/// `ProxyInstance`, and their toxics mapped onto its link (`ToxicLink`). Every change goes
/// through one gate, in arrival order; reads see the last change made. Any thread.
public final class ToxiproxyService: Sendable {
    /// A proxy's state as the API shows it.
    struct Entry: Sendable {
        var name: String
        var upstreamText: String
        var enabled: Bool
        var toxics: [Toxic]
        var instance: ProxyInstance
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let gate = AsyncGate()
    private let allowsRemoteListen: Bool
    private let sink: any EventSink

    /// - Parameters:
    ///   - allowsRemoteListen: whether a proxy may listen beyond loopback (only when the
    ///     API itself is guarded by a token).
    ///   - sink: where every proxy's conditioner events go.
    public init(allowsRemoteListen: Bool = false, sink: any EventSink = NoEvents()) {
        self.allowsRemoteListen = allowsRemoteListen
        self.sink = sink
    }

    // MARK: - Reads

    /// `GET /proxies`: every proxy by name.
    public func list() -> APIResponse {
        let all = entries.withLock { $0 }
        return .json(.object(all.mapValues(Self.json)))
    }

    /// `GET /proxies/{name}`.
    public func show(_ name: String) -> APIResponse {
        guard let entry = entries.withLock({ $0[name] }) else { return .error(Self.noProxy(name)) }
        return .json(Self.json(entry))
    }

    /// `GET /proxies/{name}/toxics`.
    public func toxics(of name: String) -> APIResponse {
        guard let entry = entries.withLock({ $0[name] }) else { return .error(Self.noProxy(name)) }
        return .json(.array(entry.toxics.map(\.json)))
    }

    /// `GET /proxies/{name}/toxics/{toxic}`.
    public func toxic(_ toxicName: String, of name: String) -> APIResponse {
        guard let entry = entries.withLock({ $0[name] }) else { return .error(Self.noProxy(name)) }
        guard let toxic = entry.toxics.first(where: { $0.name == toxicName }) else {
            return .error(Self.noToxic(toxicName, of: entry))
        }
        return .json(toxic.json)
    }

    /// The names of the proxies, sorted (for shutdown and tests).
    public var names: [String] { entries.withLock { $0.keys.sorted() } }

    // MARK: - Changes

    /// `POST /proxies`: 201 with the proxy, its `listen` the bound address.
    public func create(_ body: JSONValue) async -> APIResponse {
        await gate.run {
            do {
                let request = try ProxyRequest.create(body)
                if entries.withLock({ $0[request.name] != nil }) { throw Self.exists(request.name) }
                let entry = try await start(request, toxics: [])
                entries.withLock { $0[entry.name] = entry }
                return .json(Self.json(entry), status: 201)
            } catch let error as APIError {
                return .error(error)
            } catch {
                return .error(.badRequest("\(error)"))
            }
        }
    }

    /// `POST /populate`: creates or replaces each proxy of a list; a proxy whose listen and
    /// upstream are unchanged is kept (with its toxics and connections). All or nothing: on
    /// an error the proxies it created are removed and those it replaced start again as
    /// they were (on the port they had).
    public func populate(_ body: JSONValue) async -> APIResponse {
        await gate.run {
            guard case .array(let items) = body else {
                return .error(.badRequest("bad request body: /populate takes a JSON array of proxies, got \(body)"))
            }
            var requests: [ProxyRequest] = []
            do {
                for (index, item) in items.enumerated() {
                    do throws(APIError) { requests.append(try ProxyRequest.create(item)) } catch {
                        throw APIError(error.status, "proxy \(index): \(error.message)")
                    }
                }
                let names = requests.map(\.name)
                if let twice = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
                    throw APIError.badRequest("proxy \(twice) is named twice in the list")
                }
            } catch let error as APIError {
                return .error(error)
            } catch { return .error(.badRequest("\(error)")) }

            var created: [Entry] = []
            var replaced: [Entry] = []
            var result: [Entry] = []
            for request in requests {
                let old = entries.withLock { $0[request.name] }
                if let old, request.matches(old) {
                    var kept = old
                    kept.enabled = request.enabled
                    kept.instance.setEnabled(kept.enabled)
                    entries.withLock { $0[kept.name] = kept }
                    result.append(kept)
                    continue
                }
                if let old {
                    await old.instance.stop()
                    entries.withLock { _ = $0.removeValue(forKey: old.name) }
                    replaced.append(old)
                }
                do {
                    let entry = try await start(request, toxics: [])
                    entries.withLock { $0[entry.name] = entry }
                    created.append(entry)
                    result.append(entry)
                } catch {
                    for entry in created {
                        await entry.instance.stop()
                        entries.withLock { _ = $0.removeValue(forKey: entry.name) }
                    }
                    for old in replaced {
                        if let again = try? await restart(old) { entries.withLock { $0[again.name] = again } }
                    }
                    let apiError = (error as? APIError) ?? .badRequest("\(error)")
                    return .error(APIError(apiError.status, "proxy \(request.name): \(apiError.message)"))
                }
            }
            return .json(.object(["proxies": .array(result.map(Self.json))]), status: 201)
        }
    }

    /// `POST /proxies/{name}` (or PATCH): a new `listen`, `upstream` or `enabled`.
    public func update(_ name: String, with body: JSONValue) async -> APIResponse {
        await gate.run {
            guard var entry = entries.withLock({ $0[name] }) else { return .error(Self.noProxy(name)) }
            do {
                let request = try ProxyRequest.update(entry, with: body)
                if request.matches(entry) {
                    entry.enabled = request.enabled
                    entry.instance.setEnabled(entry.enabled)
                } else {
                    await entry.instance.stop()
                    do { entry = try await start(request, toxics: entry.toxics) } catch {
                        // The old listener is closed: bring it back as it was before saying why.
                        if let again = try? await restart(entry) { entries.withLock { $0[name] = again } } else {
                            entries.withLock { _ = $0.removeValue(forKey: name) }
                        }
                        throw error
                    }
                }
                entries.withLock { $0[name] = entry }
                return .json(Self.json(entry))
            } catch let error as APIError {
                return .error(error)
            } catch { return .error(.badRequest("\(error)")) }
        }
    }

    /// `DELETE /proxies/{name}`: 204.
    public func delete(_ name: String) async -> APIResponse {
        await gate.run {
            guard let entry = entries.withLock({ $0.removeValue(forKey: name) }) else { return .error(Self.noProxy(name)) }
            await entry.instance.stop()
            return .noContent
        }
    }

    /// `POST /proxies/{name}/toxics`: 200 with the toxic, as toxiproxy answers.
    public func addToxic(to name: String, _ body: JSONValue) async -> APIResponse {
        await changeToxics(of: name) { (entry: inout Entry) throws(APIError) -> APIResponse in
            let toxic = try ToxicRequest.create(body)
            if entry.toxics.contains(where: { $0.name == toxic.name }) {
                throw APIError.conflict("toxic already exists: \(toxic.name) on proxy \(entry.name) (update it with POST /proxies/\(entry.name)/toxics/\(toxic.name), or delete it first)")
            }
            entry.toxics.append(toxic)
            return .json(toxic.json)
        }
    }

    /// `POST /proxies/{name}/toxics/{toxic}` (or PATCH): new attributes or toxicity.
    public func updateToxic(_ toxicName: String, of name: String, _ body: JSONValue) async -> APIResponse {
        await changeToxics(of: name) { (entry: inout Entry) throws(APIError) -> APIResponse in
            guard let index = entry.toxics.firstIndex(where: { $0.name == toxicName }) else {
                throw Self.noToxic(toxicName, of: entry)
            }
            entry.toxics[index] = try ToxicRequest.update(entry.toxics[index], with: body)
            return .json(entry.toxics[index].json)
        }
    }

    /// `DELETE /proxies/{name}/toxics/{toxic}`: 204.
    public func deleteToxic(_ toxicName: String, of name: String) async -> APIResponse {
        await changeToxics(of: name) { (entry: inout Entry) throws(APIError) -> APIResponse in
            guard let index = entry.toxics.firstIndex(where: { $0.name == toxicName }) else {
                throw Self.noToxic(toxicName, of: entry)
            }
            entry.toxics.remove(at: index)
            return .noContent
        }
    }

    /// `POST /reset`: every proxy enabled, every toxic removed; 204.
    public func reset() async -> APIResponse {
        await gate.run {
            let all = entries.withLock { all in
                for name in all.keys {
                    all[name]!.enabled = true
                    all[name]!.toxics = []
                }
                return all
            }
            for entry in all.values {
                entry.instance.apply(ToxicLink.link(for: []))
                entry.instance.setEnabled(true)
            }
            return .noContent
        }
    }

    /// Stops every proxy (the API is going away).
    public func stopAll() async {
        await gate.run {
            let all = entries.withLock { all in
                defer { all = [:] }
                return all
            }
            for entry in all.values { await entry.instance.stop() }
        }
    }

    // MARK: - Helpers

    private func changeToxics(of name: String, _ change: @Sendable (inout Entry) throws(APIError) -> APIResponse) async -> APIResponse {
        await gate.run {
            guard var entry = entries.withLock({ $0[name] }) else { return .error(Self.noProxy(name)) }
            do throws(APIError) {
                let response = try change(&entry)
                entries.withLock { $0[name] = entry }
                entry.instance.apply(ToxicLink.link(for: entry.toxics))
                return response
            } catch { return .error(error) }
        }
    }

    private func start(_ request: ProxyRequest, toxics: [Toxic]) async throws -> Entry {
        let allowsRemote = allowsRemoteListen
        let (listen, upstream) = try await OffPool.run { () throws(APIError) -> (SocketAddress, SocketAddress) in
            let listen = try ProxyAddress.resolve(request.listenText, field: "listen")
            guard allowsRemote || ProxyAddress.isLoopback(listen) else {
                throw .badRequest("listen \(request.listenText) is not a loopback address: bench proxy --api binds proxies on "
                    + "127.0.0.0/8 or ::1 only, unless it was started with --api-token (give e.g. 127.0.0.1:0)")
            }
            return (listen, try ProxyAddress.resolve(request.upstreamText, field: "upstream"))
        }
        let instance: ProxyInstance
        do {
            instance = try await ProxyInstance.start(
                listen: listen, upstream: upstream, link: ToxicLink.link(for: toxics), enabled: request.enabled,
                seed: Self.seed(of: request.name), sink: sink)
        } catch {
            throw APIError.badRequest("listen \(request.listenText): cannot listen there (\(error))")
        }
        return Entry(name: request.name, upstreamText: request.upstreamText, enabled: request.enabled, toxics: toxics,
                     instance: instance)
    }

    /// A proxy started again as it was (its bound port asked for again).
    private func restart(_ entry: Entry) async throws -> Entry {
        let request = ProxyRequest(name: entry.name, listenText: entry.instance.listen.description,
                                   upstreamText: entry.upstreamText, enabled: entry.enabled)
        return try await start(request, toxics: entry.toxics)
    }

    /// A stable seed per proxy name (FNV-1a), so that a proxy's jitter and loss repeat.
    static func seed(of name: String) -> UInt64 {
        name.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    static func json(_ entry: Entry) -> JSONValue {
        let link = ToxicLink.link(for: entry.toxics)
        return .object([
            "name": .string(entry.name),
            "listen": .string(entry.instance.listen.description),
            "upstream": .string(entry.upstreamText),
            "enabled": .bool(entry.enabled),
            "toxics": .array(entry.toxics.map(\.json)),
            "deadzone": .object([
                "link": .string(ToxicLink.summary(of: link)),
                "differences": .array(ToxicLink.differences(for: entry.toxics).map(JSONValue.string)),
            ]),
        ])
    }

    static func noProxy(_ name: String) -> APIError { .notFound("proxy not found: \(name)") }
    static func exists(_ name: String) -> APIError {
        .conflict("proxy already exists: \(name) (change it with POST /proxies/\(name), or delete it first)")
    }
    static func noToxic(_ name: String, of entry: Entry) -> APIError {
        let known = entry.toxics.map(\.name)
        return .notFound("toxic not found: \(name) on proxy \(entry.name) (its toxics: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
    }
}

/// Discards every conditioner event.
public struct NoEvents: EventSink {
    public init() {}
    public func record(_ event: ConditionerEvent) {}
}
