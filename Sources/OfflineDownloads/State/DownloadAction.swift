import BenchCore

/// What the driver must do after feeding an event to a `DownloadStateMachine`.
///
/// Actions come in a fixed order, which the driver performs in turn:
/// 1. stop work (`stopTransfer`);
/// 2. the record first (`persist` or `deleteRecord`), then the files it describes
///    (`deleteLicense`, `deleteMediaFiles`), so that a crash between two actions
///    leaves either a record that says what is left to do or orphan files that the
///    start-up reconciliation removes — never a record claiming what is gone;
/// 3. tell the app (`emitStateChanged`, `reportFailure`);
/// 4. start work (`acquireLicense`, `startTransfer`, `scheduleRetry`).
public enum DownloadAction: Sendable, Hashable, CustomStringConvertible {
    /// Stop the transfer: close its connections; keep every byte already written.
    case stopTransfer
    /// Write the download's durable state to the index (GRDB) before anything else happens.
    case persist(DownloadStateMachine.Snapshot)
    /// Remove the download's record from the index.
    case deleteRecord
    /// Remove the persisted license, if any.
    case deleteLicense
    /// Remove every media file of the download, partial or complete (idempotent).
    case deleteMediaFiles
    /// Publish a state change on the event stream.
    case emitStateChanged(from: DownloadState, to: DownloadState)
    /// Publish the cause of a failure on the event stream.
    case reportFailure(DownloadFailure)
    /// Exchange a license now (the app is in the foreground). Idempotent: the driver
    /// ignores it while an exchange for this download is already in flight, and
    /// answers with `licenseAcquired()` or `permanentFailure(.license(_))`.
    case acquireLicense
    /// Start (or resume, with Range requests) the transfer over this interface.
    case startTransfer(over: InterfaceKind)
    /// Arm a retry timer with the download's `RetryBackoff` (a network failure), and
    /// feed `retryDue()` when it fires.
    case scheduleRetry

    /// A short form for logs, e.g. `startTransfer(over: wifi)`.
    public var description: String {
        switch self {
        case .stopTransfer: "stopTransfer"
        case .persist(let snapshot): "persist(\(snapshot))"
        case .deleteRecord: "deleteRecord"
        case .deleteLicense: "deleteLicense"
        case .deleteMediaFiles: "deleteMediaFiles"
        case let .emitStateChanged(from, to): "emitStateChanged(\(from) → \(to))"
        case .reportFailure(let failure): "reportFailure(\(failure))"
        case .acquireLicense: "acquireLicense"
        case .startTransfer(let interface): "startTransfer(over: \(interface))"
        case .scheduleRetry: "scheduleRetry"
        }
    }
}
