import BenchCore
import Foundation

/// Starting transfers, and waiting for storage to return.
extension DownloadManager {
    /// Starts a `TransferWorker` for `token` over `kind` (a running one is stopped first).
    /// Called while `token`'s actions are performed (the `startTransfer` action). The
    /// worker holds no reference to the manager: it sends its reports to the manager's
    /// one queue (`reports`, taken by `take(_:)`), and is handed the license exchange to
    /// wait for before the first segment, if the download still needs its license
    /// (`licenseWait`, the license route's end for transfers).
    ///
    /// The machine chose `kind` from the path it was last fed; the path may have changed
    /// since (actions await, and the actor lets path updates in meanwhile). With `kind`
    /// gone from the path the transfer cannot start: that is a network failure like any
    /// other, so the download stalls and retries with backoff, instead of staying
    /// `downloading` with no transfer until some later path update happens to differ.
    ///
    /// The new worker starts once the stopped one has ended (at most 2 s): two workers
    /// on one package would write the same `.part` files, and one would find its file
    /// renamed away by the other (chaos seed 5: a path change mid-segment failed the
    /// download for storage).
    func startTransfer(_ token: DownloadToken, over kind: InterfaceKind) {
        guard var entry = entries[token] else { return }
        entry.stopTransfer()
        let previous = entry.stoppedTransfer
        guard let interface = pathProvider.currentPath.interface(kind) else {
            entry.nextRetryKind = .network
            entry.lastError = "\(kind) is no longer in the network path"
            entries[token] = entry
            performNext(token) { machine throws(IllegalTransition) in try machine.stalled() }
            return
        }
        if entry.record.startedAt == nil { entry.record.startedAt = configuration.now() }
        entries[token] = entry
        let license = licenseWait(token)  // may start the exchange, kept in `entries[token]`
        consumeReports()
        let worker = TransferWorker(
            interface: interface, record: entry.record, report: reports.reporter(for: token, transferID: entry.transferID),
            license: license, index: index, transport: transport,
            files: PackageFiles(directory: packagePath(entry.record.packageDirectory)),
            parallelFetches: max(1, configuration.parallelSegmentFetches),
            storageCushionBytes: storageCushionBytes, freeSpace: configuration.freeSpace,
            recorder: ProgressRecorder(index: index, clock: configuration.clock, configuration: configuration.progressBatching),
            artwork: entry.video.map(PackageArtwork.init(video:)), sabotage: configuration.sabotage)
        entries[token]?.transfer = Task {
            if let previous { await Self.waitForEnd(of: previous, atMost: .seconds(2)) }
            await worker.run()
        }
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
