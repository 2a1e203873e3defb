import BenchCore
import Foundation

/// Taking the transfers' reports: one consumer reads the one queue (`reports`) in order;
/// `DownloadEntry.take` decides what each report means, and the manager performs it.
/// Transfers never wait for the consumer and never call the manager.
extension DownloadManager {
    /// Starts the consumer of `reports` unless it runs (the first transfer starts it;
    /// `shutdown` ends it by finishing the queue, once what is queued is taken).
    func consumeReports() {
        guard reportConsumer == nil else { return }
        let stream = reports.stream
        reportConsumer = Task { [weak self] in
            for await report in stream { await self?.take(report) }
        }
    }

    /// The one place a transfer's report is taken: the entry decides
    /// (`DownloadEntry.take(_:from:)`), then the record, the events and the state
    /// machine are told here. A report of a download that is gone is dropped.
    func take(_ tagged: TaggedTransferReport) async {
        let token = tagged.token
        guard var entry = entries[token] else { return }
        let step = entry.take(tagged.report, from: tagged.transferID)
        entries[token] = entry
        switch step {
        case .ignored, .canceled:
            return
        case .recorded(let events, let save):
            for event in events { sink.yield(event) }
            if save { await self.save(token) }
            return
        case .writePackage(let plan, let events):
            for event in events { sink.yield(event) }
            await complete(token, from: plan)
        case .storageShort(let failure):
            sink.yield(.error(token, message: "\(failure); downloads wait until space is free (storage cushion \(storageCushionBytes) bytes)"))
            hasStorage = false
            watchStorage()
            await conditionsChanged()
        case .feed(let input, let events):
            for event in events { sink.yield(event) }
            await report(token) { machine throws(IllegalTransition) in try input.apply(to: &machine) }
        }
        await schedule()
    }

    /// Every segment is stored and recorded: the complete local playlists replace the
    /// partial ones (here, on the actor, so that `offlineVideo` cannot write a partial
    /// package after them), then the download is complete.
    private func complete(_ token: DownloadToken, from plan: DownloadPlan) async {
        guard let directory = entries[token]?.record.packageDirectory else { return }
        let input: TransferInput
        do {
            try OfflinePackage(plan: plan).write(to: URL(fileURLWithPath: packagePath(directory)))
            input = .completed
        } catch {
            input = .permanentFailure(.storage("cannot write the local playlists: \(error)"))
        }
        await report(token) { machine throws(IllegalTransition) in try input.apply(to: &machine) }
    }
}
