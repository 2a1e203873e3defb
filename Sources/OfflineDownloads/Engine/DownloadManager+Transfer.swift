import BenchCore
import Foundation

/// Starting transfers and taking their reports.
extension DownloadManager {
    /// Starts a `TransferWorker` for `token` over `kind` (a running one is stopped first).
    /// Called while `token`'s actions are performed (the `startTransfer` action).
    ///
    /// The machine chose `kind` from the path it was last fed; the path may have changed
    /// since (actions await, and the actor lets path updates in meanwhile). With `kind`
    /// gone from the path the transfer cannot start: that is a network failure like any
    /// other, so the download stalls and retries with backoff, instead of staying
    /// `downloading` with no transfer until some later path update happens to differ.
    func startTransfer(_ token: DownloadToken, over kind: InterfaceKind) {
        guard var entry = entries[token] else { return }
        entry.stopTransfer()
        guard let interface = pathProvider.currentPath.interface(kind) else {
            entry.nextRetryKind = .network
            entry.lastError = "\(kind) is no longer in the network path"
            entries[token] = entry
            performNext(token) { machine throws(IllegalTransition) in try machine.stalled() }
            return
        }
        if entry.record.startedAt == nil { entry.record.startedAt = configuration.now() }
        let worker = TransferWorker(
            token: token, transferID: entry.transferID, interface: interface, record: entry.record, manager: self,
            index: index, transport: transport, files: PackageFiles(directory: packagePath(entry.record.packageDirectory)),
            parallelFetches: max(1, configuration.parallelSegmentFetches),
            storageCushionBytes: storageCushionBytes, freeSpace: configuration.freeSpace,
            recorder: ProgressRecorder(index: index, clock: configuration.clock, configuration: configuration.progressBatching),
            artwork: entry.video.map(PackageArtwork.init(video:)))
        entry.transfer = Task { await worker.run() }
        entries[token] = entry
    }

    func isCurrent(_ token: DownloadToken, _ transferID: Int) -> Bool {
        entries[token]?.transferID == transferID && entries[token]?.machine.state == .downloading
    }

    /// The plan is stored and `segments` are as the disk has them (reconciled):
    /// `count` segments, `bytesExpected` estimated, and the completed segments and
    /// their bytes counted from `segments`, not from what the index said before, so a
    /// file removed since is not counted twice when it is fetched again. Like a fresh
    /// run's, the count is of completed segments only (`segmentStored` adds each
    /// segment's whole size as it completes, a resumed `.part` included).
    func planned(_ token: DownloadToken, _ transferID: Int, selection: StoredSelection, bytesExpected: Int64?, segments: [SegmentRecord]) async {
        guard entries[token] != nil else { return }
        entries[token]?.record.selection = selection
        entries[token]?.record.bytesExpected = bytesExpected
        entries[token]?.record.bytesDownloaded = segments.filter { $0.state == .complete }.reduce(0) { $0 + $1.bytes }
        entries[token]?.segmentCount = segments.count
        entries[token]?.completedSegments = segments.filter { $0.state == .complete }.count
        await save(token)
    }

    /// One segment is committed and recorded. Bytes flowing reset the retry count, as
    /// in Media3, except while the transfer drains after a failure (`draining`): the
    /// segments already under way finishing says nothing of the failure's cause.
    func segmentStored(
        _ token: DownloadToken, _ transferID: Int, stream: String, index: Int, bytes: Int64, uri: String,
        streamFraction: Double, draining: Bool = false
    ) {
        guard entries[token] != nil else { return }
        if !draining { entries[token]?.retry.bytesFlowed() }
        entries[token]?.completedSegments += 1
        entries[token]?.record.bytesDownloaded += bytes
        sink.yield(.segmentStored(token, stream: stream, index: index, bytes: bytes, uri: uri))
        let previous = entries[token]?.progress[stream] ?? 0
        if streamFraction > previous {
            entries[token]?.progress[stream] = streamFraction
            sink.yield(.progress(token, selection: stream, fraction: streamFraction))
        }
    }

    /// Every segment is stored and recorded: the complete local playlists replace the
    /// partial ones (here, on the actor, so that `offlineVideo` cannot write a partial
    /// package after them), then the download is complete.
    func transferFinished(_ token: DownloadToken, _ transferID: Int, plan: DownloadPlan) async {
        guard isCurrent(token, transferID), let directory = entries[token]?.record.packageDirectory else { return }
        entries[token]?.transfer = nil
        do {
            try OfflinePackage(plan: plan).write(to: URL(fileURLWithPath: packagePath(directory)))
        } catch {
            await report(token) { machine throws(IllegalTransition) in
                try machine.permanentFailure(.storage("cannot write the local playlists: \(error)"))
            }
            await schedule()
            return
        }
        await report(token) { machine throws(IllegalTransition) in try machine.completed() }
        await schedule()
    }

    /// The transfer stopped on `failure`: suspend (network), retry (server), suspend
    /// (storage) or fail (permanent), as the failure says.
    func transferFailed(_ token: DownloadToken, _ transferID: Int, _ failure: TransferFailure) async {
        guard isCurrent(token, transferID) else { return }
        entries[token]?.transfer = nil
        entries[token]?.lastError = failure.description
        switch failure {
        case .transport(.canceled):
            return
        case .transport(.storage(_, noSpace: true)), .lowStorage:
            sink.yield(.error(token, message: "\(failure); downloads wait until space is free (storage cushion \(storageCushionBytes) bytes)"))
            hasStorage = false
            watchStorage()
            await conditionsChanged()
        case .transport(.storage(let why, _)):
            await report(token) { machine throws(IllegalTransition) in try machine.permanentFailure(.storage(why)) }
        case .transport(.status(let code, _)) where TransportError.status(code, retryAfter: nil).isPermanent:
            await report(token) { machine throws(IllegalTransition) in try machine.permanentFailure(.httpStatus(code)) }
        case .transport(let error) where !error.isNetwork && error.isPermanent:
            await report(token) { machine throws(IllegalTransition) in try machine.permanentFailure(.playlist("\(error)")) }
        case .transport(let error):
            // Network or a passing server error: suspend for the network and retry;
            // server errors count against the bounded attempts.
            entries[token]?.nextRetryKind = error.isNetwork ? .network : .other
            await report(token) { machine throws(IllegalTransition) in try machine.stalled() }
        case .license:
            // A passing license failure (a refusal has failed the download already):
            // retried like a server error, against the bounded attempts.
            entries[token]?.nextRetryKind = .other
            await report(token) { machine throws(IllegalTransition) in try machine.stalled() }
        case .playlist(let why):
            await report(token) { machine throws(IllegalTransition) in try machine.permanentFailure(.playlist(why)) }
        case .index(let why):
            await report(token) { machine throws(IllegalTransition) in try machine.permanentFailure(.storage(why)) }
        }
        await schedule()
    }

    /// While storage is short, checks free space every second and lifts the suspension
    /// once the cushion is free again.
    func watchStorage() {
        guard storageWatcher == nil else { return }
        let directory = configuration.storageDirectory
        let freeSpace = configuration.freeSpace
        storageWatcher = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                guard let cushion = await self?.storageCushionBytes else { return }
                if let free = try? freeSpace(directory), free >= cushion {
                    await self?.storageRecovered()
                    return
                }
            }
        }
    }

    func storageRecovered() async {
        storageWatcher = nil
        hasStorage = true
        await conditionsChanged()
    }
}

/// Why a transfer stopped.
enum TransferFailure: Error, CustomStringConvertible {
    case transport(TransportError)
    case lowStorage(free: Int64)
    case playlist(String)
    case index(String)
    /// The license could not be acquired for a passing reason (a refusal fails the
    /// download when the license exchange ends).
    case license(String)

    var description: String {
        switch self {
        case .transport(let error): "\(error)"
        case .lowStorage(let free): "only \(free) bytes free, under the storage cushion"
        case .playlist(let why): why
        case .index(let why): why
        case .license(let why): "no license yet: \(why)"
        }
    }
}
