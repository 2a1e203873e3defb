import BenchCore

/// The life of one download, as a pure state machine: no I/O, no clock, no locks.
///
/// Owned by the download manager actor, one per token. The manager feeds it events
/// (user calls, its queue, network path and app lifecycle, the transfer's outcome)
/// and performs the returned `DownloadAction`s in order. An event the table does not
/// allow throws `IllegalTransition` and leaves the machine unchanged.
///
/// ## Transition table
///
/// `r` is the suspension reason that holds (see "Priority" below); "settle" means:
/// go to `suspended(r)` if a reason holds, else to `downloading` over the chosen
/// interface. Edges marked † are additions to the seed table (NotDownloaded →
/// (Requested | LicensePreloaded) → Downloading ⇄ Suspended → Downloaded;
/// Downloading/Suspended → Canceling → NotDownloaded; Failed), each argued in the
/// function that takes it. Actions are listed without `emitStateChanged`, which
/// accompanies every change of `state`.
///
///     state              event                          → new state           actions
///     ─────────────────  ─────────────────────────────  ───────────────────  ──────────────────────────────
///     notDownloaded      downloadRequested              → requested           persist
///     notDownloaded      licensePreloaded               → licensePreloaded    persist
///     notDownloaded      restored(snapshot, after:)     → see "Restore"
///     licensePreloaded   downloadRequested              → requested           persist
///     licensePreloaded   deleteRequested                → notDownloaded †     deleteRecord, deleteLicense, deleteMediaFiles
///     requested          slotGranted                    → settle              persist, [acquireLicense], startTransfer
///                                                         (suspended(r) †)    persist
///     requested          userPaused, userResumed        → requested           persist (the pause flag), or nothing
///     requested          licenseAcquired                → requested †         persist (no license needed now)
///     requested          permanentFailure(f)            → failed †            persist, reportFailure
///     requested          cancelRequested                → canceling †         persist, deleteMediaFiles
///     downloading        conditionsChanged              → settle              stopTransfer, persist
///                                                         (same state, new    stopTransfer, startTransfer
///                                                          interface)
///     downloading        userPaused                     → suspended(user)     stopTransfer, persist
///     downloading        stalled                        → suspended(network)  stopTransfer, persist, scheduleRetry
///     downloading        userResumed, retryDue,         → downloading         nothing
///                        licenseAcquired
///     downloading        completed                      → downloaded          persist
///     downloading        permanentFailure(f)            → failed              stopTransfer, persist, reportFailure
///     downloading        cancelRequested                → canceling           stopTransfer, persist, deleteMediaFiles
///     suspended(_)       conditionsChanged, userPaused, → settle              persist, [acquireLicense], startTransfer;
///                        userResumed, licenseAcquired,                        or persist; or nothing
///                        retryDue
///     suspended(_)       permanentFailure(f)            → failed              persist, reportFailure
///     suspended(_)       cancelRequested                → canceling           persist, deleteMediaFiles
///     downloaded         deleteRequested                → notDownloaded †     deleteRecord, deleteLicense, deleteMediaFiles
///     canceling          cancelFinished                 → notDownloaded       deleteRecord, deleteLicense
///     canceling          cancelRequested                → canceling           nothing (already under way)
///     failed             deleteRequested                → notDownloaded †     deleteRecord, deleteLicense, deleteMediaFiles
///     any but the two    expired                        → notDownloaded †     [stopTransfer], deleteRecord, deleteLicense,
///     below                                                                   deleteMediaFiles
///     canceling          expired                        → canceling           nothing (already being removed)
///     any                conditionsChanged              → same (stored)       nothing, outside downloading/suspended
///     any other pair                                    → IllegalTransition   state unchanged
///
/// `acquireLicense` is issued when a transfer starts while the download still needs
/// a license (it did not preload one and none was acquired yet).
///
/// ## Priority of suspension reasons
///
/// When several hold, `suspended` shows the first of: `user`, `storage`, `network`
/// or `cellularNotAllowed` (one at a time: they come from one `InterfaceChoice`;
/// a stall counts as `network` once the path offers an interface), then
/// `awaitingForeground`.
/// - `user` first: only the user can undo it, and a paused download must say
///   "paused" whatever else happens; resuming then reveals what else holds.
/// - `storage` before `network`: the network may come back by itself, space will
///   not; it is the reason the user can act on, and waiting for the network would
///   only lead to a storage suspension.
/// - `network` before `awaitingForeground`: a license exchange needs the network
///   too, so sending the user to the foreground while offline would not help.
///
/// ## Restore
///
/// `restored(_:after:)` rebuilds a machine from its `Snapshot` at start-up.
/// `requested`, `licensePreloaded`, `downloaded`, `failed` and `notDownloaded` come
/// back as they were; `canceling` comes back with `deleteMediaFiles` to finish the
/// cancel. A download in flight (`downloading` or any `suspended`) fails at once with
/// `.interrupted` after `userForceQuit` or `rebootWhileSuspended`, as the SDK guides
/// describe; after `clean`, `crash` or `memoryPressure` it settles under the current
/// conditions and resumes (a user pause is kept).
public struct DownloadStateMachine: Sendable, Hashable {
    /// The states, with what only the machine needs: the interface of a running
    /// transfer and the cause of a failure.
    private enum State: Sendable, Hashable {
        case notDownloaded
        case requested
        case licensePreloaded
        case downloading(over: InterfaceKind)
        case suspended(SuspensionReason)
        case downloaded
        case canceling
        case failed(DownloadFailure)
    }

    private var current: State = .notDownloaded
    /// The latest conditions fed by the manager, kept in every state.
    public private(set) var conditions: DownloadConditions
    /// The user paused the download and has not resumed it. Kept apart from the
    /// conditions: a change of conditions never clears it, and clearing it never
    /// overrides the conditions.
    public private(set) var isPausedByUser = false
    /// A license must still be exchanged before the video can play.
    public private(set) var needsLicense = false
    /// The last transfer stalled; cleared by `retryDue` or by a change of network.
    public private(set) var isStalled = false

    /// A machine for a token with nothing stored yet, under `conditions`.
    public init(conditions: DownloadConditions) {
        self.conditions = conditions
    }

    /// The state, as reported to the app.
    public var state: DownloadState {
        switch current {
        case .notDownloaded: .notDownloaded
        case .requested: .requested
        case .licensePreloaded: .licensePreloaded
        case .downloading: .downloading
        case .suspended(let reason): .suspended(reason)
        case .downloaded: .downloaded
        case .canceling: .canceling
        case .failed: .failed
        }
    }

    /// The interface the transfer runs over, when downloading.
    public var transferInterface: InterfaceKind? {
        if case .downloading(let interface) = current { return interface }
        return nil
    }

    /// The cause of the failure, when failed.
    public var failure: DownloadFailure? {
        if case .failed(let failure) = current { return failure }
        return nil
    }

    /// What the index keeps for this download.
    public var snapshot: Snapshot {
        Snapshot(state: state, isPausedByUser: isPausedByUser, needsLicense: needsLicense, failure: failure)
    }

    // MARK: Events from the user

    /// The user asked to download (`requestDownload`). From `licensePreloaded` the
    /// license is already held.
    public mutating func downloadRequested(requiresLicense: Bool) throws(IllegalTransition) -> [DownloadAction] {
        switch current {
        case .notDownloaded: needsLicense = requiresLicense
        case .licensePreloaded: needsLicense = false
        default: throw refusal(.downloadRequested)
        }
        return move(to: .requested)
    }

    /// A license was preloaded (`preloadLicense`) for a video not yet requested.
    public mutating func licensePreloaded() throws(IllegalTransition) -> [DownloadAction] {
        guard current == .notDownloaded else { throw refusal(.licensePreloaded) }
        needsLicense = false
        return move(to: .licensePreloaded)
    }

    /// The user paused. Idempotent. † A queued (`requested`) download records the pause
    /// and stays queued: it has no transfer to stop, and takes `suspended(user)` when
    /// its slot comes, so tapping pause on a queued download is never an error.
    public mutating func userPaused() throws(IllegalTransition) -> [DownloadAction] {
        try setPause(true, event: .userPaused)
    }

    /// The user resumed. Idempotent. The download settles under the current
    /// conditions: resuming during an outage lands in `suspended(network)`.
    public mutating func userResumed() throws(IllegalTransition) -> [DownloadAction] {
        try setPause(false, event: .userResumed)
    }

    /// The user canceled a download in flight. † A queued download also cancels through
    /// `canceling`, so that "files are being removed" has one path and one recovery.
    public mutating func cancelRequested() throws(IllegalTransition) -> [DownloadAction] {
        switch current {
        case .canceling: return []
        case .requested, .downloading, .suspended: return move(to: .canceling, cleanup: [.deleteMediaFiles])
        default: throw refusal(.cancelRequested)
        }
    }

    /// The user deleted a preloaded license, a downloaded video or a failed download. †
    /// Settled downloads leave at once: the record goes first, then the files, so a
    /// crash in between leaves orphans for start-up reconciliation, never a record of
    /// missing files. Downloads in flight must be canceled instead.
    public mutating func deleteRequested() throws(IllegalTransition) -> [DownloadAction] {
        switch current {
        case .licensePreloaded, .downloaded, .failed:
            return move(to: .notDownloaded, cleanup: [.deleteLicense, .deleteMediaFiles])
        default: throw refusal(.deleteRequested)
        }
    }

    /// The download's own expiry date (`DownloadParameters.expiresAt`, a caching expiry
    /// independent of the license) passed. † The video is evicted from any state it
    /// has, as a delete would remove it, with a running transfer stopped first; a
    /// download already being canceled just finishes its cancel.
    public mutating func expired() throws(IllegalTransition) -> [DownloadAction] {
        switch current {
        case .notDownloaded: throw refusal(.expired)
        case .canceling: return []
        default: return move(to: .notDownloaded, cleanup: [.deleteLicense, .deleteMediaFiles])
        }
    }

    // MARK: Events from the manager and the transfer

    /// The manager's queue gave the download a slot. † If a reason holds already, the
    /// download goes straight to `suspended(r)`: starting a transfer only to stop it
    /// would be noise. A slot is held in `downloading` and `suspended` alike.
    public mutating func slotGranted() throws(IllegalTransition) -> [DownloadAction] {
        guard current == .requested else { throw refusal(.slotGranted) }
        return move(to: settled)
    }

    /// The conditions changed (path, storage, foreground). Legal in every state: they
    /// are stored, and matter in `downloading` and `suspended`. A new network choice
    /// clears a stall: a new path is a fresh chance.
    public mutating func conditionsChanged(_ newConditions: DownloadConditions) -> [DownloadAction] {
        if newConditions.network != conditions.network { isStalled = false }
        conditions = newConditions
        return isActive ? move(to: settled) : []
    }

    /// No bytes arrived for the stall timeout although the path offered an interface.
    /// A stall is a network suspension, never a failure; the driver retries later.
    public mutating func stalled() throws(IllegalTransition) -> [DownloadAction] {
        guard case .downloading = current else { throw refusal(.stalled) }
        isStalled = true
        return move(to: settled, then: [.scheduleRetry])
    }

    /// The retry timer armed by `scheduleRetry` fired. In `downloading` it is a stale
    /// timer and does nothing.
    public mutating func retryDue() throws(IllegalTransition) -> [DownloadAction] {
        guard isActive else { throw refusal(.retryDue) }
        isStalled = false
        return move(to: settled)
    }

    /// The license exchange succeeded. † A queued download (`requested`) keeps its
    /// place and records that it holds its license: `prepareForBackground` exchanges
    /// licenses for queued downloads too, so that they can start in the background.
    public mutating func licenseAcquired() throws(IllegalTransition) -> [DownloadAction] {
        if current == .requested {
            guard needsLicense else { return [] }
            needsLicense = false
            return [.persist(snapshot)]
        }
        guard isActive else { throw refusal(.licenseAcquired) }
        needsLicense = false
        return move(to: settled)
    }

    /// Every segment is stored and recorded.
    public mutating func completed() throws(IllegalTransition) -> [DownloadAction] {
        guard case .downloading = current else { throw refusal(.completed) }
        return move(to: .downloaded, transferEnded: true)
    }

    /// The download cannot go on. † Also from `requested`: the playlists are fetched
    /// when the download is requested and may fail before it gets a slot.
    public mutating func permanentFailure(_ failure: DownloadFailure) throws(IllegalTransition) -> [DownloadAction] {
        guard current == .requested || isActive else { throw refusal(.permanentFailure) }
        return move(to: .failed(failure))
    }

    /// The files of a canceled download are removed.
    public mutating func cancelFinished() throws(IllegalTransition) -> [DownloadAction] {
        guard current == .canceling else { throw refusal(.cancelFinished) }
        return move(to: .notDownloaded, cleanup: [.deleteLicense])
    }

    /// Rebuilds the download from its `Snapshot` at start-up, after the previous
    /// process ended with `termination`; see "Restore" above. Legal only on a machine
    /// with nothing stored (`notDownloaded`); feed the current conditions first.
    public mutating func restored(_ snapshot: Snapshot, after termination: ProcessTermination)
        throws(IllegalTransition) -> [DownloadAction]
    {
        guard current == .notDownloaded else { throw refusal(.restored) }
        isPausedByUser = snapshot.isPausedByUser
        needsLicense = snapshot.needsLicense
        isStalled = false
        switch snapshot.state {
        case .notDownloaded: return []
        case .requested: current = .requested; return []
        case .licensePreloaded: current = .licensePreloaded; return []
        case .downloaded: current = .downloaded; return []
        case .failed: current = .failed(snapshot.failure ?? .unrecorded); return []
        case .canceling: current = .canceling; return [.deleteMediaFiles]
        case .downloading, .suspended:
            // Nothing runs in a new process: enter the new state from the recorded one.
            let target: State = termination.losesDownloadsInFlight ? .failed(.interrupted(termination)) : settled
            return enter(target, from: snapshot.state, running: nil, transferEnded: false, cleanup: [], then: [])
        }
    }

    // MARK: The table's machinery

    /// In the downloading ⇄ suspended pair.
    private var isActive: Bool {
        switch current {
        case .downloading, .suspended: true
        default: false
        }
    }

    /// Where a download in the pair belongs under the current facts, by priority.
    private var settled: State {
        if isPausedByUser { return .suspended(.user) }
        if !conditions.hasStorage { return .suspended(.storage) }
        switch conditions.network {
        case .noNetwork: return .suspended(.network)
        case .cellularNotAllowed: return .suspended(.cellularNotAllowed)
        case .use(let interface):
            if isStalled { return .suspended(.network) }
            if needsLicense && !conditions.isForeground { return .suspended(.awaitingForeground) }
            return .downloading(over: interface)
        }
    }

    private mutating func setPause(_ paused: Bool, event: DownloadEvent) throws(IllegalTransition) -> [DownloadAction] {
        switch current {
        case .requested:
            guard isPausedByUser != paused else { return [] }
            isPausedByUser = paused
            return [.persist(snapshot)]
        case .downloading, .suspended:
            isPausedByUser = paused
            return move(to: settled)
        default:
            throw refusal(event)
        }
    }

    private func refusal(_ event: DownloadEvent) -> IllegalTransition {
        IllegalTransition(state: state, event: event)
    }

    /// Moves from the current state to `new`; see `enter`.
    private mutating func move(
        to new: State, transferEnded: Bool = false, cleanup: [DownloadAction] = [], then: [DownloadAction] = []
    ) -> [DownloadAction] {
        enter(new, from: state, running: transferInterface, transferEnded: transferEnded, cleanup: cleanup, then: then)
    }

    /// Enters `new` from the reported state `old` while a transfer runs over
    /// `running` (nil when none does), and returns the actions in `DownloadAction`'s
    /// order: stop, record, `cleanup`, tell, start, `then`.
    private mutating func enter(
        _ new: State, from old: DownloadState, running: InterfaceKind?, transferEnded: Bool,
        cleanup: [DownloadAction], then: [DownloadAction]
    ) -> [DownloadAction] {
        current = new
        switch new {
        case .requested, .downloading, .suspended: break
        default:
            // Pause and stall mean nothing outside the queue and the transfer pair.
            isPausedByUser = false
            isStalled = false
            if new == .notDownloaded { needsLicense = false }
        }
        let target = transferInterface
        var actions: [DownloadAction] = []
        if let running, running != target, !transferEnded { actions.append(.stopTransfer) }
        let changed = state != old
        if changed { actions.append(new == .notDownloaded ? .deleteRecord : .persist(snapshot)) }
        actions += cleanup
        if changed { actions.append(.emitStateChanged(from: old, to: state)) }
        if changed, let failure { actions.append(.reportFailure(failure)) }
        if let target, target != running {
            if needsLicense { actions.append(.acquireLicense) }
            actions.append(.startTransfer(over: target))
        }
        return actions + then
    }
}
