import DeadzoneKit
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The first error of the lanes of one try (taken from any lane's thread).
// @unchecked: `errors` and `queue` are read and written only under `lock`.
private final class LaneErrors: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []
    private var queue: [Resource]
    init(_ queue: [Resource]) { self.queue = queue }

    func add(_ error: any Error) { lock.withLock { errors.append(error) } }
    /// The next resource to fetch; nil once there is none or a lane failed.
    func next() -> Resource? { lock.withLock { errors.isEmpty && !queue.isEmpty ? queue.removeFirst() : nil } }
    /// The error to raise: the first that is not an abort, else the first.
    var first: (any Error)? { lock.withLock { errors.first { !isAbort($0) } ?? errors.first } }
    /// Whether a lane failed or nothing is left to hand out.
    var over: Bool { lock.withLock { !errors.isEmpty || queue.isEmpty } }
}

extension Engine {
    /// Segments fetched at once per download, each on its own connection.
    static let lanes = 2

    /// Fetches `pending` in order over `lanes` connections at once (a lost packet holds one
    /// connection, not the download). The first error stops handing out work (a network
    /// error also cuts the other lanes' transfers); it is raised once every lane stopped.
    func fetchInLanes(_ token: String, _ attempt: Attempt, _ pending: [Resource]) throws {
        let work = LaneErrors(pending)
        let lanes = [attempt] + (1..<max(1, min(Self.lanes, pending.count))).map { _ in Attempt(interface: attempt.interface) }
        try lock.withLock {
            guard !attempt.aborted else { throw Aborted() }
            runtime[token]?.attempts.append(contentsOf: lanes.dropFirst())
        }
        let group = DispatchGroup()
        let lane: @Sendable (Attempt) -> Void = { [self] laneAttempt in
            do {
                if laneAttempt !== attempt && !awaitProbe(token, laneAttempt, work) { return }
                while let resource = work.next() {
                    try goOn(token, laneAttempt)
                    try fetchResource(token, laneAttempt, resource)
                }
            } catch {
                work.add(error)
                if case FetchError.network = error {  // the others would only stall as long again
                    for other in lanes where other !== laneAttempt { other.cut() }
                }
            }
        }
        for extra in lanes.dropFirst() {
            group.enter()
            Thread {
                lane(extra)
                group.leave()
            }.start()
        }
        lane(attempt)
        group.wait()
        let extras = lanes.dropFirst()
        lock.withLock { runtime[token]?.attempts.removeAll { candidate in extras.contains { $0 === candidate } } }
        if let error = work.first { throw error }
    }

    /// After a failure, the first lane alone probes the network: the others open their
    /// connections once bytes came (an outage then costs one connection per retry, not
    /// one per lane). False when the lane has nothing left to do.
    private func awaitProbe(_ token: String, _ lane: Attempt, _ work: LaneErrors) -> Bool {
        lock.withLock {
            while (runtime[token]?.backoff.failures ?? 0) > 0 {
                if lane.aborted || lane.wasCut || work.over { return false }
                _ = lock.wait(until: Date().addingTimeInterval(0.1))
            }
            return true
        }
    }

    /// One key, init section or segment: into `.part` (resumed by Range from what it
    /// holds), then renamed. A byte range of a resource asks for its bytes only, from
    /// the first one the `.part` lacks to its last (`ByteRange.header`), never from 0 of
    /// the file nor past the range.
    private func fetchResource(_ token: String, _ attempt: Attempt, _ resource: Resource) throws {
        let final = store.packageDirectory(token).appendingPathComponent(resource.local)
        let part = URL(fileURLWithPath: final.path + ".part")
        try FileManager.default.createDirectory(at: final.deletingLastPathComponent(), withIntermediateDirectories: true)
        var have = store.size(token: token, local: resource.local + ".part") ?? 0
        if let range = resource.byteRange, have >= range.length {
            if have == range.length { return try stored(token, attempt, resource, part: part, final: final) }  // whole, not renamed yet
            try? FileManager.default.removeItem(at: part)
            have = 0
        }
        var headers: [String: String] = [:]
        if let range = resource.byteRange {
            headers["Range"] = range.header(resumingAt: have)
        } else if have > 0 {
            headers["Range"] = "bytes=\(have)-"
        }
        let fetched = try client.fetch(
            resource.url, over: attempt, headers: headers, into: .file(part, have: have, range: resource.byteRange),
            onBytes: onBytes(token, attempt))
        let status = fetched.response.statusCode
        if let range = resource.byteRange {
            guard status == 206 else {
                throw Refused("\(resource.path): HTTP \(status) to Range \(range.header(resumingAt: have)) (a byte range of it is a segment)")
            }
            guard Responses.continues(fetched.response, have: have, range: range) else {
                throw FetchError.network("\(resource.path): the server answered another range than \(range.header(resumingAt: have))")
            }
            let size = store.size(token: token, local: resource.local + ".part") ?? 0
            guard size == range.length else { throw FetchError.network("\(resource.path): \(size) of the range's \(range.length) bytes stored") }
            return try stored(token, attempt, resource, part: part, final: final)
        }
        if status == 416 {
            let total = Responses.contentRange(fetched.response)?.split(separator: "/").last.map(String.init)
            if have > 0 && total == String(have) { return try stored(token, attempt, resource, part: part, final: final) }
            try? FileManager.default.removeItem(at: part)
            throw FetchError.network("\(resource.path): the partial file does not fit the resource; fetching it again")
        }
        if status == 206 && !Responses.continues(fetched.response, have: have, range: nil) {
            throw FetchError.network("\(resource.path): the server answered another range")
        }
        guard status == 200 || status == 206 else { throw Refused("\(resource.path): HTTP \(status)") }
        try stored(token, attempt, resource, part: part, final: final)
    }

    private func stored(_ token: String, _ attempt: Attempt, _ resource: Resource, part: URL, final: URL) throws {
        try lock.withLock {
            guard !attempt.aborted, records[token]?.state.isInFlight == true, let plan = records[token]?.plan else { throw Aborted() }
            guard rename(part.path, final.path) == 0 else { throw Refused("\(resource.path): cannot rename its .part file (errno \(errno))") }
            guard resource.stream != PlanBuilder.initStream else { return }  // no segment of the protocol's
            let bytes = store.size(token: token, local: resource.local) ?? 0
            report { try events.segmentStored(token, stream: resource.stream, index: resource.index, bytes: bytes, path: resource.path) }
            guard let total = plan.selections[resource.stream] else { return }
            let count = (runtime[token]?.stored[resource.stream] ?? 0) + 1
            runtime[token]?.stored[resource.stream] = count
            report { try events.progress(token, selection: resource.stream, fraction: min(1, Double(count) / Double(max(1, total)))) }
        }
    }
}
