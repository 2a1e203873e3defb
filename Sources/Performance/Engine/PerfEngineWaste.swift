import FixtureOrigin
import Foundation

/// One connection through the conditioner, as its events told it.
struct PerfEngineConnection: Sendable {
    /// The engine's address, `host:port` (the origin sees it in the PROXY header).
    var peer = ""
    /// Bytes sent down to the engine (final, from `connectionClosed`).
    var downlinkBytes = 0
    /// Why it ended: the conditioner's reason (`random reset …`, `closed by peers`, …).
    var ending: String?
    var wasReset = false
}

/// Where the bytes sent down the link beyond the content went, per connection: each
/// connection's downstream bytes minus the bytes of its responses the engine kept.
///
/// A response's kept bytes follow from the origin's request log: a response that the
/// next request for the same path resumed (`Range: bytes=N-`) kept N minus its own start;
/// one fetched again from byte 0 kept nothing; the last response of a path kept all.
/// What is left on a connection is HTTP heads, plus the bytes it delivered past the
/// point the engine resumed from (lost when the connection ended mid-response).
struct PerfEngineWaste: Sendable {
    struct Share: Sendable {
        var connections = 0
        var bytes = 0
    }

    /// Connections the conditioner reset at random.
    var reset = Share()
    /// Other connections with a response the engine did not keep in full (a fetch it
    /// cancelled mid-response, or a whole response it fetched again from byte 0).
    var discarded = Share()
    /// Every other connection: HTTP heads only.
    var clean = Share()
    /// Connections whose requests the origin's log does not show (no PROXY match).
    var unmatched = 0

    init(connections: [PerfEngineConnection], requests: [OriginRequestRecord]) {
        let kept = Self.keptBytes(requests)
        let byPeer = Dictionary(grouping: requests.indices, by: { requests[$0].proxySource ?? "" })
        for connection in connections {
            guard let indices = byPeer[connection.peer] else {
                unmatched += 1
                continue
            }
            let waste = connection.downlinkBytes - indices.map { kept[$0] }.reduce(0, +)
            let cutShort = indices.contains { kept[$0] < requests[$0].bytesSent }
            if connection.ending?.hasPrefix("random reset") == true {
                reset.connections += 1
                reset.bytes += waste
            } else if cutShort {
                discarded.connections += 1
                discarded.bytes += waste
            } else {
                clean.connections += 1
                clean.bytes += waste
            }
        }
    }

    /// Body bytes of each request (by index) that ended up in the engine's files.
    private static func keptBytes(_ requests: [OriginRequestRecord]) -> [Int] {
        var kept = requests.map(\.bytesSent)
        let byPath = Dictionary(grouping: requests.indices, by: { requests[$0].path })
        for (_, indices) in byPath {
            let ordered = indices.sorted { requests[$0].startedAtNanoseconds < requests[$1].startedAtNanoseconds }
            for (current, next) in zip(ordered, ordered.dropFirst()) {
                let start = rangeStart(requests[current].range), resumedAt = rangeStart(requests[next].range)
                kept[current] = min(requests[current].bytesSent, max(0, resumedAt - start))
            }
        }
        return kept
    }

    /// N of `bytes=N-`, 0 without a range.
    private static func rangeStart(_ range: String?) -> Int {
        guard let range, range.hasPrefix("bytes=") else { return 0 }
        return Int(range.dropFirst(6).prefix { $0.isNumber }) ?? 0
    }

    /// One sentence for the notes.
    var summary: String {
        func average(_ share: Share) -> String {
            share.connections > 0 ? " (\(share.bytes / share.connections) per connection)" : ""
        }
        return "bytes sent down beyond what the engine kept: \(reset.bytes) on \(reset.connections) randomly reset "
            + "connections\(average(reset)), \(discarded.bytes) on \(discarded.connections) other connections with a "
            + "response the engine did not keep whole (a fetch it cancelled, or fetched again from byte 0)"
            + "\(average(discarded)), \(clean.bytes) on \(clean.connections) "
            + "clean connections (HTTP heads)" + (unmatched > 0 ? "; \(unmatched) connections not matched in the origin's log" : "")
    }
}
