import BenchCore
import BenchVocabulary
import Foundation
import FixtureOrigin
import LinkConditioner
import Synchronization

/// `bench proxy --http-proxy --intercept HOST…`: the intercepting proxy beside the
/// conditioner, the run's CA written to `DIR/ca.pem`, each exchange written to
/// `DIR/exchanges.jsonl` as it ends (one `OriginRequestRecord` a line) and printed, the
/// connections to other hosts counted as blind, and `DIR/interception.json` at the end.
final class ProxyInterception: Sendable {
    let proxy: InterceptingProxy
    let directory: String
    let rules: [InterceptRule]
    private let exchanges: FileHandle
    private let queue = DispatchQueue(label: "deadzone.bench.exchanges")
    private let blind = Mutex<[String: Int]>([:])
    private let failure = Mutex<String?>(nil)

    /// Makes (or reuses, `reuseCA`) the CA, writes it, starts the proxy on loopback.
    static func start(
        rules: [InterceptRule], directory: String, upstreamCA: String?, reuseCA: String?
    ) async throws -> ProxyInterception {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let authority = try reuseCA.map { try RunCertificateAuthority.reusable(in: $0) } ?? RunCertificateAuthority.make()
        try authority.caPEM.write(toFile: directory + "/ca.pem", atomically: true, encoding: .utf8)
        let path = directory + "/exchanges.jsonl"
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot create \(path)"])
        }
        let box = Mutex<ProxyInterception?>(nil)
        let proxy = try await InterceptingProxy.start(
            configuration: InterceptConfiguration(rules: rules, authority: authority, upstreamCAFile: upstreamCA)
        ) { record in box.withLock { $0 }?.write(record) }
        let interception = ProxyInterception(proxy: proxy, directory: directory, rules: rules, exchanges: handle)
        box.withLock { $0 = interception }
        return interception
    }

    private init(proxy: InterceptingProxy, directory: String, rules: [InterceptRule], exchanges: FileHandle) {
        self.proxy = proxy
        self.directory = directory
        self.rules = rules
        self.exchanges = exchanges
    }

    /// What the conditioner is told: these hosts go to this proxy.
    var conditionerInterception: ConditionerConfiguration.Interception {
        ConditionerConfiguration.Interception(rules: rules, proxy: SocketAddress(host: "127.0.0.1", port: UInt16(proxy.port)))
    }

    /// Names the interfaces by their listeners, once the conditioner runs.
    func interfacesListening(_ endpoints: [InterfaceKind: SocketAddress]) {
        proxy.setInterfaces(Dictionary(uniqueKeysWithValues: endpoints.map { ($0.value.description, $0.key.rawValue) }))
    }

    /// Counts the connections to hosts not intercepted (a CONNECT tunnel or a forwarded request).
    var blindCounter: any EventSink { BlindCounter(interception: self) }

    private struct BlindCounter: EventSink {
        let interception: ProxyInterception
        func record(_ event: ConditionerEvent) {
            switch event.kind {
            case let .tunnelOpened(_, _, target), let .requestForwarded(_, _, target):
                interception.blind.withLock { $0[target, default: 0] += 1 }
            default: break
            }
        }
    }

    /// Written and printed off the event loop, in the order the exchanges ended.
    private func write(_ record: OriginRequestRecord) {
        queue.async { [self] in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            guard var line = try? encoder.encode(record) else { return }
            line.append(0x0A)
            do { try exchanges.write(contentsOf: line) } catch {
                failure.withLock { $0 = $0 ?? "cannot write \(directory)/exchanges.jsonl: \(error)" }
            }
            let range = record.range.map { " \($0)" } ?? ""
            let outcome = record.upstreamError.map { " — \($0)" } ?? (record.completed ? "" : " (cut short)")
            print("\(record.interface ?? "direct") \(record.method) \(record.host ?? "")\(record.path)\(range) → "
                + "\(record.status), \(record.bytesSent) B\(outcome)")
            fflush(nil)
        }
    }

    /// Stops the proxy, writes `interception.json`, prints the summary; the write failure, if any.
    func finish() async -> String? {
        try? await proxy.stop()
        let exchanges = proxy.exchanges
        let blind = blind.withLock { $0 }
        let queue = self.queue
        await OffPool.run { queue.sync {} }  // the last lines written
        let summary: [String: Any] = [
            "intercepted": rules.map(\.description),
            "exchanges": exchanges.count,
            "upstream_errors": exchanges.filter { $0.upstreamError != nil }.count,
            "blind": blind.keys.sorted().map { ["target": $0, "connections": blind[$0]!] },
        ]
        do {
            let data = try JSONSerialization.data(withJSONObject: summary, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: URL(fileURLWithPath: directory + "/interception.json"))
        } catch {
            failure.withLock { $0 = $0 ?? "cannot write \(directory)/interception.json: \(error)" }
        }
        try? self.exchanges.close()
        print("intercepted \(exchanges.count) exchange(s) with \(Set(exchanges.compactMap(\.host)).count) host(s): "
            + "\(directory)/exchanges.jsonl")
        let tunnels = blind.values.reduce(0, +)
        if tunnels > 0 {
            print("not seen: \(tunnels) connection(s) to hosts not intercepted (blind tunnels): "
                + blind.keys.sorted().map { "\($0) ×\(blind[$0]!)" }.joined(separator: ", "))
        }
        return failure.withLock { $0 }
    }
}
