import BenchCore
import Crypto
import Foundation
import HLSPlaylist

/// One run of one download's transfer, over one interface: plan (first run only),
/// license gate, segments (several at a time, each resumed with Range where a `.part`
/// is left), then the offline package. It reports to the manager and ends on the first
/// failure; the manager decides what the failure means. Canceling its task stops it.
struct TransferWorker: Sendable {
    let token: DownloadToken
    let transferID: Int
    let interface: PathInterface
    let record: DownloadRecord
    let manager: DownloadManager
    let index: DownloadIndex
    let transport: HTTPTransport
    let files: PackageFiles
    let parallelFetches: Int
    let storageCushionBytes: Int64

    func run() async {
        do {
            var (segments, ranges) = try await loadOrPlan()
            let reconciled = files.reconcile(segments: segments)
            try await recordFound(reconciled.filter { $0.state == .complete }, stored: segments)
            segments = reconciled
            guard await manager.licenseGate(token) else { return }
            try await fetch(segments.filter { $0.state != .complete }, all: segments, ranges: ranges)
            try await writePackage(segments)
            await manager.transferFinished(token, transferID)
        } catch {
            await manager.transferFailed(token, transferID, Task.isCancelled ? .transport(.canceled) : error)
        }
    }

    /// The byte ranges of range items, by segment key (from the plan kept as `plan.json`).
    typealias Ranges = [SegmentRecord.Key: ByteRange]

    /// The stored segments, or on the first run the plan made from the playlists.
    private func loadOrPlan() async throws(TransferFailure) -> ([SegmentRecord], Ranges) {
        let stored: [SegmentRecord]
        do { stored = try await index.segments(for: token.rawValue) } catch { throw .index("\(error)") }
        if !stored.isEmpty {
            await manager.planned(token, transferID, selection: record.selection, bytesExpected: record.bytesExpected, segments: stored)
            let saved = FileManager.default.contents(atPath: files.directory + "/" + Self.planFile)
            guard let saved, let plan = try? JSONDecoder().decode(DownloadPlan.self, from: saved) else {
                throw .playlist("the download's plan (\(Self.planFile)) is missing or unreadable; delete the download and request it again")
            }
            return (stored, ranges(of: plan))
        }
        let plan = try await OfflinePlanner(transport: transport, interface: interface, record: record).plan()
        do { try await index.insertSegments(plan.segments) } catch { throw .index("\(error)") }
        await manager.planned(token, transferID, selection: plan.selection, bytesExpected: plan.bytesExpected, segments: plan.segments)
        do {
            try plan.writeLocalPlaylists(into: files.directory)
            try JSONEncoder().encode(plan.plan).write(
                to: URL(fileURLWithPath: files.directory + "/" + Self.planFile), options: .atomic)
        } catch {
            throw .transport(.storage("cannot write the local playlists: \(error)", noSpace: false))
        }
        return (plan.segments, ranges(of: plan.plan))
    }

    /// Where the plan is kept in the package, so a relaunch needs no playlist.
    static let planFile = DownloadPlan.packageFileName

    private func ranges(of plan: DownloadPlan) -> Ranges {
        var ranges: Ranges = [:]
        for item in plan.items {
            if let range = item.byteRange { ranges[SegmentRecord.Key(token: token.rawValue, stream: item.stream, index: item.index)] = range }
        }
        return ranges
    }

    /// Fetches `pending` with at most `parallelFetches` at a time.
    ///
    /// A failed segment stops new ones from starting but does not cancel the others:
    /// they run to their end (or their own failure) and the first failure is reported
    /// after them. Cancelling siblings would throw away the bytes already in flight to
    /// them, which a random reset of one connection would otherwise cost every time.
    /// Cancelling the worker's task (pause, path change) still stops everything at once.
    private func fetch(_ pending: [SegmentRecord], all: [SegmentRecord], ranges: Ranges) async throws(TransferFailure) {
        let totals = Dictionary(grouping: all, by: \.stream).mapValues(\.count)
        var done = Dictionary(grouping: all.filter { $0.state == .complete }, by: \.stream).mapValues(\.count)
        let firstFailure: TransferFailure? = await withTaskGroup(of: Result<SegmentRecord, TransferFailure>.self) { group in
            var queue = pending[...]
            var failure: TransferFailure?
            func next() {
                guard failure == nil, let segment = queue.popFirst() else { return }
                group.addTask {
                    do throws(TransferFailure) { return .success(try await fetchOne(segment, range: ranges[segment.key])) }
                    catch { return .failure(error) }
                }
            }
            for _ in 0..<parallelFetches { next() }
            while let result = await group.next() {
                switch result {
                case .failure(let error):
                    if failure == nil { failure = error }
                case .success(let segment):
                    done[segment.stream, default: 0] += 1
                    let fraction = Double(done[segment.stream] ?? 0) / Double(max(1, totals[segment.stream] ?? 1))
                    await manager.segmentStored(
                        token, transferID, stream: segment.stream, index: segment.index, bytes: segment.bytes,
                        uri: segment.uri, streamFraction: fraction, draining: failure != nil)
                    next()
                }
            }
            return failure
        }
        if let firstFailure { throw firstFailure }
    }

    /// One segment: cushion check, download into `.part` (resumed), commit, record.
    private func fetchOne(_ segment: SegmentRecord, range: ByteRange?) async throws(TransferFailure) -> SegmentRecord {
        if let free = try? files.freeSpace(), free < storageCushionBytes { throw .lowStorage(free: free) }
        guard let url = URL(string: segment.uri) else { throw .playlist("segment URI \(segment.uri) is not a URL") }
        let part: String
        do { part = try files.prepare(segment) } catch { throw .transport(.storage("\(error)", noSpace: error.isDiskFull)) }
        let result: FileTransferResult
        do {
            result = try await transport.download(
                url, via: interface, to: part, resumeAt: segment.bytes, etag: segment.etag, byteRange: range) { _ in }
        } catch {
            // Keep what arrived: the next run resumes from the `.part` file's size.
            let size = (try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int64) ?? segment.bytes
            _ = try? await index.recordProgress([
                SegmentProgress(key: segment.key, bytes: size, etag: segment.etag)
            ])
            throw .transport(error)
        }
        var stored = segment
        do {
            stored.bytes = try files.commit(segment)
            stored.sha256 = try Self.sha256(of: files.finalPath(for: segment))
            stored.etag = result.etag
            stored.state = .complete
            try await index.markSegmentComplete(
                token: token.rawValue, stream: segment.stream, index: segment.index, bytes: stored.bytes,
                sha256: stored.sha256 ?? "", etag: result.etag)
        } catch let error as PackageFileError {
            throw .transport(.storage("\(error)", noSpace: error.isDiskFull))
        } catch {
            throw .index("\(error)")
        }
        return stored
    }

    /// Records segments whose final file was renamed into place by a process that died
    /// before it could tell the index.
    private func recordFound(_ complete: [SegmentRecord], stored: [SegmentRecord]) async throws(TransferFailure) {
        let recorded = Set(stored.filter { $0.state == .complete }.map(\.key))
        for segment in complete where !recorded.contains(segment.key) {
            do {
                try await index.markSegmentComplete(
                    token: token.rawValue, stream: segment.stream, index: segment.index, bytes: segment.bytes,
                    sha256: try Self.sha256(of: files.finalPath(for: segment)), etag: segment.etag)
            } catch {
                throw .index("\(error)")
            }
        }
    }

    private func writePackage(_ segments: [SegmentRecord]) async throws(TransferFailure) {
        // The local playlists were written with the plan; nothing else is needed here
        // until keys are stored as files.
    }

    static func sha256(of path: String) throws -> String {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
