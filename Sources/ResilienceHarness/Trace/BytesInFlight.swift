import BenchCore
import LinkConditioner

/// Bytes of a media response on their way to the app when it was killed, as the
/// origin, the conditioner and the harness's own reading of the disk saw them (never
/// as the app says). Shared by `crash-recovery` (a kill counts toward its minimum only
/// with bytes in flight) and its tests.
public struct BytesInFlight: Sendable, Hashable {
    /// The media request whose response was cut.
    public var request: TracedOriginRequest
    /// How the cut shows.
    public var evidence: Evidence

    public enum Evidence: Sendable, Hashable {
        /// The origin was still sending the response at the kill (`start ≤ kill < end`,
        /// body bytes sent).
        case originSending
        /// The origin had sent it (started by the kill, body bytes sent) into the app's
        /// connection through the conditioner, and the conditioner delivered down that
        /// connection, over its whole life, `bytes` fewer than the bodies the origin
        /// sent on it in responses started by the kill (response heads are delivered
        /// too, so at least that many body bytes never reached the app).
        case undelivered(connection: UInt64, bytes: Int)
        /// The response (the latest started by the kill on an app connection the
        /// conditioner still had open at the kill) carried its file's bytes up to
        /// `sentThrough` (a position in the file), and the disk held them only up to
        /// `onDisk` at the kill (a partial copy's size, from the first byte of the
        /// resource the response was for: 0, or its byte range's first; that first
        /// without a copy): the rest was between the conditioner
        /// and the app's file (socket buffers, the app's memory) when the app died. The
        /// conditioner counts as delivered what it wrote into the app's socket, even
        /// just after the app died, so only the disk shows these.
        case notOnDisk(connection: UInt64, sentThrough: Int64, onDisk: Int64)
    }
}

extension ScenarioTrace {
    /// The media responses whose bytes were in flight to the app at `t` (a kill): the
    /// ones the origin was still sending, then, for each app connection open at `t`,
    /// its latest response when it was `undelivered` or else `notOnDisk` (`disk`: the
    /// kill's disk snapshot; without it only the first two kinds are found; a response
    /// for a byte range is matched to the range of the snapshot it fell in). The origin names the app's connection by its PROXY
    /// header (`proxySource`), the conditioner by the peer it accepted: the same
    /// address while the connection is open.
    public func mediaBytesInFlight(at t: UInt64, disk: TracedDiskSnapshot? = nil) -> [BytesInFlight] {
        var found = originRequests.filter { request in
            Self.isMediaResponse(request.path) && request.start <= t && t < request.t && request.record.bytesSent > 0
        }.map { BytesInFlight(request: $0, evidence: .originSending) }
        for connection in conditionerConnections() where connection.accepted <= t && (connection.closed ?? .max) >= t {
            let responses = originRequests.filter { request in
                request.record.proxySource == connection.peer && request.start >= connection.accepted && request.start <= t
            }
            guard let last = responses.max(by: { $0.start < $1.start }), Self.isMediaResponse(last.path),
                last.record.bytesSent > 0, !found.contains(where: { $0.request == last })
            else { continue }
            let sent = responses.reduce(0) { $0.plus($1.record.bytesSent) }
            if sent > connection.delivered {
                found.append(BytesInFlight(
                    request: last, evidence: .undelivered(connection: connection.id, bytes: sent - connection.delivered)))
                continue
            }
            guard let disk else { continue }
            let resource = disk.resource(carriedBy: last)
            guard !disk.stored.contains(resource.description) else { continue }
            let through = last.servedBytes.upperBound
            let held = resource.offset + (disk.partial[resource.description] ?? 0)
            guard through > held else { continue }
            found.append(BytesInFlight(
                request: last, evidence: .notOnDisk(connection: connection.id, sentThrough: through, onDisk: held)))
        }
        return found
    }

    /// Whether `path` names media the app stores as it was served: a segment
    /// (`OriginPath.isMediaSegment`: `.ts`, `.m4s`, `.aac`), or an MP4 file (`.mp4`,
    /// `.m4v`, `.m4a`, `.cmfv`, `.cmfa`: a recorded stream's init section, or the one
    /// file of a single-file fMP4 stream whose segments are byte ranges of it).
    static func isMediaResponse(_ path: String) -> Bool {
        let name = OriginPath.normalized(path).lowercased()
        return OriginPath.isMediaSegment(path) || [".mp4", ".m4v", ".m4a", ".cmfv", ".cmfa"].contains { name.hasSuffix($0) }
    }

    /// The app's connections through the conditioner: who (peer), when, and the bytes
    /// delivered down each (the largest total it reported).
    func conditionerConnections() -> [ConditionerConnection] {
        var connections: [ConditionerConnection] = []
        var current: [UInt64: Int] = [:]
        for entry in entries {
            guard case .conditioner(let kind) = entry.event else { continue }
            switch kind {
            case let .connectionAccepted(id, interface, peer):
                current[id.rawValue] = connections.count
                connections.append(ConditionerConnection(id: id.rawValue, interface: interface, peer: peer, accepted: entry.t))
            case let .bytesForwarded(id, _, direction, _, total) where direction == .downlink:
                if let index = current[id.rawValue] { connections[index].delivered = max(connections[index].delivered, total) }
            case let .connectionClosed(id, _, _, stats):
                guard let index = current[id.rawValue] else { continue }
                connections[index].closed = entry.t
                connections[index].delivered = max(connections[index].delivered, stats.bytesDownlink)
            default:
                continue
            }
        }
        return connections
    }
}

/// One connection the conditioner accepted from the app.
struct ConditionerConnection: Hashable {
    var id: UInt64
    /// The interface it came through.
    var interface: InterfaceKind
    /// The app's address, `host:port`.
    var peer: String
    var accepted: UInt64
    var closed: UInt64?
    /// Bytes delivered down to the app.
    var delivered = 0
}

extension TracedDiskSnapshot {
    /// The resource `request`'s response was for, as this snapshot names resources: the
    /// byte range it holds (whole or in part) that the response's first byte falls in,
    /// preferring one that ends where the request's `Range` does; else (and for a request
    /// without `Range`) the whole file.
    func resource(carriedBy request: TracedOriginRequest) -> MediaResourceKey {
        guard request.record.range != nil else { return MediaResourceKey(path: request.path) }
        let first = request.servedBytes.lowerBound
        let ranges = (namedRanges.ranges[request.path] ?? []).filter { $0.contains(first) }
        let last = request.askedBytes?.last
        let range = ranges.first { $0.upperBound == last } ?? ranges.first
        return MediaResourceKey(path: request.path, range: range)
    }
}
