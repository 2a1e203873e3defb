import BenchCore
import Foundation

/// What a transfer's report asks of the manager, decided by `DownloadEntry.take` from
/// the report and the download's own facts alone (no I/O, no clock). The manager
/// performs it (`DownloadManager.take(_:)`).
enum ReportStep: Sendable, Hashable {
    /// The report is not this download's business any more: the transfer was stopped
    /// (its id is no longer the download's) or the download left `downloading`.
    case ignored
    /// Counts and progress are updated: tell `events` in order, then save the record
    /// when `save` (the plan's figures changed).
    case recorded(events: [EngineEvent], save: Bool)
    /// Every segment is stored: tell `events` (each stream's progress brought to 1),
    /// write the complete package from `plan`, then feed `completed` (or a storage
    /// failure when the package cannot be written).
    case writePackage(DownloadPlan, events: [EngineEvent] = [])
    /// The transfer was canceled: nothing to feed, whoever canceled it decides.
    case canceled
    /// The disk is short of space: every download waits until the cushion is free.
    case storageShort(TransferFailure)
    /// Tell `events`, then feed `input` to the state machine.
    case feed(TransferInput, events: [EngineEvent] = [])
}

/// A state-machine input that a transfer's last report stands for.
enum TransferInput: Sendable, Hashable {
    case completed
    /// Suspend for the network and retry (`DownloadEntry.nextRetryKind` says how it counts).
    case stalled
    case permanentFailure(DownloadFailure)

    /// Feeds this input to `machine`.
    func apply(to machine: inout DownloadStateMachine) throws(IllegalTransition) -> [DownloadAction] {
        switch self {
        case .completed: try machine.completed()
        case .stalled: try machine.stalled()
        case .permanentFailure(let failure): try machine.permanentFailure(failure)
        }
    }
}

extension DownloadEntry {
    /// Takes one report of transfer `transferID`: the one place where a transfer's report
    /// becomes what the download records and the input its state machine is fed.
    ///
    /// `.planned` and `.segmentStored` say what is on disk, so they count from a stopped
    /// transfer too (its last segments are stored all the same). `.finished` and
    /// `.failed` decide the download's state, so only the current transfer's counts
    /// (`isCurrent`), and only its first: taking it ends the transfer (`transfer` nil,
    /// a new `transferID`), after which nothing it sends decides anything.
    mutating func take(_ report: TransferReport, from transferID: Int) -> ReportStep {
        switch report {
        case .planned(let planned):
            record.selection = planned.selection
            record.bytesExpected = planned.bytesExpected
            record.bytesDownloaded = planned.bytesStored
            segmentCount = planned.segmentCount
            completedSegments = planned.completedSegments
            return .recorded(events: [], save: true)
        case .segmentStored(let segment):
            return .recorded(events: stored(segment), save: false)
        case .finished(let plan):
            guard endTransfer(transferID) else { return .ignored }
            return .writePackage(plan, events: finalProgress(plan))
        case .failed(let failure):
            guard endTransfer(transferID) else { return .ignored }
            return failed(failure)
        }
    }

    /// Whether `transferID` is the transfer running now: not stopped (a stop changes
    /// `transferID`) and the download still `downloading`.
    func isCurrent(_ transferID: Int) -> Bool {
        self.transferID == transferID && machine.state == .downloading
    }

    /// Ends the current transfer `transferID`; false when it is not the current one.
    private mutating func endTransfer(_ transferID: Int) -> Bool {
        guard isCurrent(transferID) else { return false }
        transfer = nil
        self.transferID += 1
        return true
    }

    /// One segment is committed and recorded. Bytes flowing reset the retry count, as
    /// in Media3, except while the transfer drains after a failure (`draining`): the
    /// segments already under way finishing says nothing of the failure's cause. The
    /// stream's progress never goes back.
    private mutating func stored(_ segment: StoredSegment) -> [EngineEvent] {
        if !segment.draining { retry.bytesFlowed() }
        completedSegments += 1
        record.bytesDownloaded += segment.bytes
        var events: [EngineEvent] = [
            .segmentStored(token, stream: segment.stream, index: segment.index, bytes: segment.bytes, uri: segment.uri)
        ]
        if segment.streamFraction > progress[segment.stream] ?? 0 {
            progress[segment.stream] = segment.streamFraction
            events.append(.progress(token, selection: segment.stream, fraction: segment.streamFraction))
        }
        return events
    }

    /// Progress 1 for each stream of `plan` not yet told it: every segment is stored, but
    /// the last ones may have been stored by an earlier process that was killed before
    /// it told them (a relaunched transfer then finds nothing left to fetch). A download
    /// never ends `downloaded` with a selection short of 1.
    private mutating func finalProgress(_ plan: DownloadPlan) -> [EngineEvent] {
        var streams: [String] = []
        for item in plan.items where !streams.contains(item.stream) { streams.append(item.stream) }
        return streams.compactMap { stream in
            guard progress[stream] != 1 else { return nil }
            progress[stream] = 1
            return .progress(token, selection: stream, fraction: 1)
        }
    }

    /// The transfer stopped on `failure`: suspend (network), retry (server), suspend
    /// (storage) or fail (permanent), as the failure says.
    private mutating func failed(_ failure: TransferFailure) -> ReportStep {
        lastError = failure.description
        switch failure {
        case .transport(.canceled):
            return .canceled
        case .transport(.storage(_, noSpace: true)), .lowStorage:
            return .storageShort(failure)
        case .transport(.storage(let why, _)):
            return .feed(.permanentFailure(.storage(why)))
        case .transport(.status(let code, _)) where TransportError.status(code, retryAfter: nil).isPermanent:
            return .feed(.permanentFailure(.httpStatus(code)))
        case .transport(let error) where !error.isNetwork && error.isPermanent:
            return .feed(.permanentFailure(.playlist("\(error)")))
        case .transport(.captivePortal(let why)):
            // The network answers with a portal's login page: not content, and not a
            // failure of the download. Suspended for the network like an outage, retried
            // without bound; the event says why the network is not usable.
            nextRetryKind = .network
            return .feed(.stalled, events: [.error(token, message: Self.portalMessage(why))])
        case .transport(let error):
            // Network or a passing server error: suspend for the network and retry;
            // server errors count against the bounded attempts.
            nextRetryKind = error.isNetwork ? .network : .other
            return .feed(.stalled)
        case .license(_, let network):
            // The license exchange the transfer waited for ended without the license
            // for a passing reason (a refusal has failed the download already, which
            // stopped this transfer): retried like a network failure when the network
            // let it down (no interface, a captive portal, a reset), else like a server
            // error, against the bounded attempts.
            nextRetryKind = network ? .network : .other
            return .feed(.stalled)
        case .playlist(let why):
            return .feed(.permanentFailure(.playlist(why)))
        case .index(let why):
            return .feed(.permanentFailure(.storage(why)))
        }
    }

    /// The `error` event's text when a captive portal suspends a download.
    static func portalMessage(_ why: String) -> String {
        "captive portal: \(why); nothing of it is stored, the download is suspended for the network and retries"
    }
}
