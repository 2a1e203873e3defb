import BenchCore
import Crypto
import Foundation
import HLSPlaylist
import Synchronization

/// One run of one download's transfer, over one interface: plan (first run only),
/// reconciliation of the index with the disk (every run: a file removed since is
/// fetched again), the license (waited for, never decided here), segments (several at
/// a time, each resumed with Range where a `.part` is left, recorded in batches), the
/// poster and thumbnail (`PackageArtwork`), then the manager writes the offline package.
///
/// It only reports (`TransferReport`, through `report`, which enqueues and never waits)
/// and ends on the first failure; the manager decides what a report means. Canceling its
/// task stops it.
struct TransferWorker: Sendable {
    let interface: PathInterface
    let record: DownloadRecord
    /// Where this transfer's reports go, tagged with its download and transfer id.
    let report: TransferReporter
    /// The license exchange to wait for before the first segment, handed over by the
    /// manager at start (`DownloadManager.licenseWait`); nil when the download holds its
    /// license, and under `EngineConfiguration.transferSkipsLicenseGate`.
    let license: LicenseExchange?
    let index: DownloadIndex
    let transport: HTTPTransport
    let files: PackageFiles
    let parallelFetches: Int
    let storageCushionBytes: Int64
    let freeSpace: @Sendable (String) throws -> Int64
    let recorder: ProgressRecorder
    /// The images of the catalog entry to store with the package, when there is one;
    /// `artwork.json` in the package, once written, takes precedence.
    let artwork: PackageArtwork?
    /// What the transfer breaks on purpose, for the harness's misbehaving agent only
    /// (`EngineConfiguration.sabotage`); nothing for an app.
    var sabotage = EngineSabotage()

    var token: DownloadToken { report.token }

    /// Runs the transfer to its end, then sends its one last report: `.finished` or `.failed`.
    func run() async {
        let last: TransferReport
        do throws(TransferFailure) {
            last = .finished(try await transfer())
        } catch {
            last = .failed(Task.isCancelled ? .transport(.canceled) : error)
        }
        report.send(last)
    }

    /// Everything but the last report; returns the plan the package is written from.
    private func transfer() async throws(TransferFailure) -> DownloadPlan {
        let loaded = try await loadOrPlan()
        let segments = files.reconcile(segments: loaded.segments)
        try await recordReconciled(segments, stored: loaded.segments)
        report.send(.planned(PlannedTransfer(selection: loaded.selection, bytesExpected: loaded.bytesExpected, segments: segments)))
        try await awaitLicense()
        try await fetch(segments.filter { $0.state != .complete }, all: segments, ranges: ranges(of: loaded.plan))
        try await fetchArtwork()
        return loaded.plan
    }

    /// Waits for the license exchange handed over at start, if any. Without the license
    /// the transfer ends here, before anything encrypted, with `TransferFailure.license`:
    /// the exchange has failed the download already when the server refused (which
    /// stopped this transfer), else the report retries it (as a network failure when
    /// the exchange failed on the network, `EngineError.offline`).
    private func awaitLicense() async throws(TransferFailure) {
        guard let license else { return }
        if case .failure(let error) = await license.value { throw .license("\(error)", network: error.isOffline || error.isLicenseInBackground) }
    }

    /// The byte ranges of range items, by segment key (from the plan kept as `plan.json`).
    typealias Ranges = [SegmentRecord.Key: ByteRange]

    /// What a run works from: the segments as the index records them, the plan, and
    /// what the manager is told of it (`.planned`).
    private struct Loaded {
        var segments: [SegmentRecord]
        var plan: DownloadPlan
        var selection: StoredSelection
        var bytesExpected: Int64?
    }

    /// The stored segments and plan, or on the first run the plan made from the playlists.
    private func loadOrPlan() async throws(TransferFailure) -> Loaded {
        let stored: [SegmentRecord]
        do { stored = try await index.segments(for: token.rawValue) } catch { throw .index("\(error)") }
        if !stored.isEmpty {
            let saved = FileManager.default.contents(atPath: files.directory + "/" + Self.planFile)
            guard let saved, let plan = try? JSONDecoder().decode(DownloadPlan.self, from: saved) else {
                throw .playlist("the download's plan (\(Self.planFile)) is missing or unreadable; delete the download and request it again")
            }
            return Loaded(segments: stored, plan: plan, selection: record.selection, bytesExpected: record.bytesExpected)
        }
        var plan = try await OfflinePlanner(transport: transport, interface: interface, record: record).plan()
        if sabotage.dropsInitSections { plan = plan.withoutInitSections(token: token.rawValue) }
        do { try await index.insertSegments(plan.segments) } catch { throw .index("\(error)") }
        do {
            // The playlists list what is stored (nothing yet) until the download completes.
            try plan.writeLocalPlaylists(into: files.directory, stored: [])
            try JSONEncoder().encode(plan.plan).write(
                to: URL(fileURLWithPath: files.directory + "/" + Self.planFile), options: .atomic)
        } catch {
            throw .transport(.storage("cannot write the local playlists: \(error)", noSpace: false))
        }
        return Loaded(segments: plan.segments, plan: plan.plan, selection: plan.selection, bytesExpected: plan.bytesExpected)
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

    /// What a child task of `fetch` ends with.
    private enum Outcome: Sendable {
        case stored(SegmentRecord)
        case failed(TransferFailure)
        /// The recorder's interval passed: time to look whether a batch is due.
        case tick
    }

    /// Fetches `pending` with at most `parallelFetches` at a time, recording progress
    /// and completions in batches (`ProgressRecorder`), flushed when due and at the end.
    ///
    /// A failed segment stops new ones from starting but does not cancel the others:
    /// they run to their end (or their own failure) and the first failure is reported
    /// after them. Cancelling siblings would throw away the bytes already in flight to
    /// them, which a random reset of one connection would otherwise cost every time.
    /// Cancelling the worker's task (pause, path change) still stops everything at once.
    private func fetch(_ pending: [SegmentRecord], all: [SegmentRecord], ranges: Ranges) async throws(TransferFailure) {
        let totals = Dictionary(grouping: all, by: \.stream).mapValues(\.count)
        var done = Dictionary(grouping: all.filter { $0.state == .complete }, by: \.stream).mapValues(\.count)
        let interval = recorder.interval
        let firstFailure: TransferFailure? = await withTaskGroup(of: Outcome.self) { group in
            var queue = pending[...]
            var failure: TransferFailure?
            var inFlight = 0
            func next() {
                // A stopped worker (pause, path change) starts no new segment: one that
                // finished as it was stopped must not open the next `.part` behind it.
                guard failure == nil, !Task.isCancelled, let segment = queue.popFirst() else { return }
                inFlight += 1
                group.addTask {
                    do throws(TransferFailure) { return .stored(try await fetchOne(segment, range: ranges[segment.key])) }
                    catch { return .failed(error) }
                }
            }
            func tick() {
                group.addTask {
                    try? await Task.sleep(for: interval)
                    return .tick
                }
            }
            for _ in 0..<parallelFetches { next() }
            if inFlight > 0 { tick() }
            while let outcome = await group.next() {
                switch outcome {
                case .tick:
                    if inFlight > 0, !Task.isCancelled { tick() }
                case .failed(let error):
                    inFlight -= 1
                    if failure == nil { failure = error }
                case .stored(let segment):
                    inFlight -= 1
                    recorder.complete(SegmentCompletion(key: segment.key, bytes: segment.bytes, sha256: segment.sha256, etag: segment.etag))
                    done[segment.stream, default: 0] += 1
                    let fraction = Double(done[segment.stream] ?? 0) / Double(max(1, totals[segment.stream] ?? 1))
                    report.send(.segmentStored(StoredSegment(
                        stream: segment.stream, index: segment.index, bytes: segment.bytes, uri: segment.uri,
                        streamFraction: fraction, draining: failure != nil)))
                    next()
                }
                if recorder.isDue, !Task.isCancelled {
                    do { try await recorder.flush() } catch { if failure == nil { failure = .index("\(error)") } }
                }
                if inFlight == 0 { group.cancelAll() }  // ends the tick
            }
            return failure
        }
        // The last batch is written even when the worker is being cancelled (pause,
        // shutdown) just as it ends: an unstructured task does not inherit the
        // cancellation, which the index would refuse.
        let last = recorder
        let unwritten: IndexError? = await Task { () async -> IndexError? in
            do throws(IndexError) { try await last.flush() } catch { return error }
            return nil
        }.value
        if let firstFailure { throw firstFailure }  // the disk is the truth at restart
        if let unwritten { throw .index("\(unwritten)") }
    }

    /// One segment: cushion check, download into `.part` (resumed), commit. The caller
    /// records it (batched); its final file in place already counts as stored.
    private func fetchOne(_ segment: SegmentRecord, range: ByteRange?) async throws(TransferFailure) -> SegmentRecord {
        if let free = try? freeSpace(files.directory), free < storageCushionBytes { throw .lowStorage(free: free) }
        guard let url = URL(string: segment.uri) else { throw .playlist("segment URI \(segment.uri) is not a URL") }
        let part: String
        do { part = try files.prepare(segment) } catch { throw .transport(.storage("\(error)", noSpace: error.isDiskFull)) }
        let key = segment.key
        let recorder = recorder
        let written = Atomic<Int64>(segment.bytes)
        // What the answer said: the ETag (for If-Range) and the file's full length.
        let head = Mutex<(etag: String?, length: Int64?)>((segment.etag, segment.expectedLength))
        let result: FileTransferResult
        do throws(TransportError) {
            result = try await transport.download(
                url, via: interface, to: part, resumeAt: segment.bytes, etag: segment.etag,
                byteRange: sabotage.range(range, resumingAt: segment.bytes),
                responded: { tag, length in head.withLock { $0 = (tag, length ?? $0.length) } }
            ) { count in
                let total = written.add(Int64(count), ordering: .relaxed).newValue
                let (tag, length) = head.withLock { $0 }
                recorder.report(SegmentProgress(key: key, bytes: total, etag: tag, expectedLength: length))
            }
        } catch {
            // Keep what arrived: the next run resumes from the `.part` file's size, with If-Range.
            let size = (try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int64) ?? segment.bytes
            let (tag, length) = head.withLock { $0 }
            recorder.report(SegmentProgress(key: key, bytes: size, etag: tag, expectedLength: length))
            throw .transport(error)
        }
        var stored = segment
        let files = files
        do {
            // The sync, rename and hash block on the disk: off the cooperative pool.
            (stored.bytes, stored.sha256) = try await OffPool.run { () throws -> (Int64, String) in
                (try files.commit(segment), try Self.sha256(of: files.finalPath(for: segment)))
            }
        } catch let error as PackageFileError {
            throw .transport(.storage("\(error)", noSpace: error.isDiskFull))
        } catch {
            throw .transport(.storage("\(error)", noSpace: false))
        }
        stored.etag = result.etag
        stored.state = .complete
        return stored
    }

    /// Tells the index what the disk says (`reconciled`, from `PackageFiles.reconcile`
    /// of `stored`, in the same order): a segment whose final file was renamed into
    /// place by a process that died before it could tell the index is recorded
    /// complete; one recorded complete whose file is gone or cut short (removed behind
    /// the engine's back while the download was paused, suspended or the app closed)
    /// is recorded pending again, so the index never claims it and it is fetched again.
    private func recordReconciled(_ reconciled: [SegmentRecord], stored: [SegmentRecord]) async throws(TransferFailure) {
        var found: [SegmentCompletion] = []
        var lost: [SegmentRecord] = []
        let files = files
        for (before, segment) in zip(stored, reconciled) {
            if segment.state == .complete, before.state != .complete {
                let hash = try? await OffPool.run { try Self.sha256(of: files.finalPath(for: segment)) }
                found.append(SegmentCompletion(key: segment.key, bytes: segment.bytes, sha256: hash, etag: segment.etag))
            } else if before.state == .complete, segment.state != .complete {
                lost.append(segment)
            }
        }
        do {
            try await index.record(ProgressBatcher.Batch(completions: found))
            if !lost.isEmpty { try await index.saveSegments(lost) }
        } catch {
            throw .index("\(error)")
        }
    }

    static func sha256(of path: String) throws -> String {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
