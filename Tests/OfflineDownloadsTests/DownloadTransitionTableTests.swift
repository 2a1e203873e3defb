import BenchCore
import OfflineDownloads
import Testing

/// Every legal (state, event) pair with its exact result, and every illegal pair refused.
@Suite("DownloadStateMachine transition table")
struct DownloadTransitionTableTests {
    typealias Snapshot = DownloadStateMachine.Snapshot

    /// One row of the table: from a fixture state (see `Fixture`), an event, the new
    /// state and the actions in order.
    struct Row: CustomTestStringConvertible, Sendable {
        var from: DownloadState
        var step: Step
        var to: DownloadState
        var actions: [DownloadAction]
        var testDescription: String { "\(from) --\(step)--> \(to)" }
    }

    static func emit(_ from: DownloadState, _ to: DownloadState) -> DownloadAction { .emitStateChanged(from: from, to: to) }
    static func persist(_ state: DownloadState, paused: Bool = false, license: Bool = false, failure: DownloadFailure? = nil) -> DownloadAction {
        .persist(Snapshot(state: state, isPausedByUser: paused, needsLicense: license, failure: failure))
    }

    static let gone = DownloadFailure.httpStatus(410)
    static let removeAll: [DownloadAction] = [.deleteRecord, .deleteLicense, .deleteMediaFiles]

    /// Rows that every suspended fixture shares: failing and canceling.
    static func leaving(_ reason: SuspensionReason) -> [Row] {
        let from = DownloadState.suspended(reason)
        return [
            Row(from: from, step: .fail(gone), to: .failed, actions: [
                persist(.failed, license: reason == .awaitingForeground, failure: gone), emit(from, .failed),
                .reportFailure(gone)]),
            Row(from: from, step: .cancel, to: .canceling, actions: [
                persist(.canceling, license: reason == .awaitingForeground), .deleteMediaFiles, emit(from, .canceling)]),
            Row(from: from, step: .expire, to: .notDownloaded, actions: removeAll + [emit(from, .notDownloaded)]),
        ]
    }

    static let rows: [Row] = [
        // Nothing stored yet: a request or a preloaded license creates the record.
        Row(from: .notDownloaded, step: .request(license: false), to: .requested,
            actions: [persist(.requested), emit(.notDownloaded, .requested)]),
        Row(from: .notDownloaded, step: .preload, to: .licensePreloaded,
            actions: [persist(.licensePreloaded), emit(.notDownloaded, .licensePreloaded)]),
        Row(from: .notDownloaded, step: .conditions(.offline), to: .notDownloaded, actions: []),
        Row(from: .notDownloaded, step: .restore(Snapshot(state: .downloaded), after: .clean), to: .downloaded, actions: []),

        // Queued: the slot starts it; pause/resume only flip the recorded flag.
        Row(from: .requested, step: .slot, to: .downloading,
            actions: [persist(.downloading), emit(.requested, .downloading), .startTransfer(over: .wifi)]),
        Row(from: .requested, step: .pause, to: .requested, actions: [persist(.requested, paused: true)]),
        Row(from: .requested, step: .resume, to: .requested, actions: []),  // was not paused: nothing to record
        Row(from: .requested, step: .fail(gone), to: .failed,
            actions: [persist(.failed, failure: gone), emit(.requested, .failed), .reportFailure(gone)]),
        Row(from: .requested, step: .cancel, to: .canceling,
            actions: [persist(.canceling), .deleteMediaFiles, emit(.requested, .canceling)]),
        Row(from: .requested, step: .conditions(.offline), to: .requested, actions: []),
        // A license exchanged while queued (prepareForBackground): recorded, still queued.
        Row(from: .requested, step: .licenseAcquired, to: .requested, actions: []),  // this fixture needs none
        Row(from: .requested, step: .expire, to: .notDownloaded, actions: removeAll + [emit(.requested, .notDownloaded)]),

        // A preloaded license: request it (no license exchange later) or delete it.
        Row(from: .licensePreloaded, step: .request(license: true), to: .requested,
            actions: [persist(.requested), emit(.licensePreloaded, .requested)]),
        Row(from: .licensePreloaded, step: .delete, to: .notDownloaded,
            actions: removeAll + [emit(.licensePreloaded, .notDownloaded)]),
        Row(from: .licensePreloaded, step: .conditions(.offline), to: .licensePreloaded, actions: []),
        Row(from: .licensePreloaded, step: .expire, to: .notDownloaded,
            actions: removeAll + [emit(.licensePreloaded, .notDownloaded)]),

        // Downloading over WiFi.
        Row(from: .downloading, step: .conditions(.offline), to: .suspended(.network),
            actions: [.stopTransfer, persist(.suspended(.network)), emit(.downloading, .suspended(.network))]),
        // WiFi went, cellular is allowed: same state, the transfer moves.
        Row(from: .downloading, step: .conditions(.cellular), to: .downloading,
            actions: [.stopTransfer, .startTransfer(over: .cellular)]),
        Row(from: .downloading, step: .conditions(.favorable), to: .downloading, actions: []),
        Row(from: .downloading, step: .pause, to: .suspended(.user),
            actions: [.stopTransfer, persist(.suspended(.user), paused: true), emit(.downloading, .suspended(.user))]),
        Row(from: .downloading, step: .resume, to: .downloading, actions: []),
        Row(from: .downloading, step: .stall, to: .suspended(.network),
            actions: [.stopTransfer, persist(.suspended(.network)), emit(.downloading, .suspended(.network)), .scheduleRetry]),
        Row(from: .downloading, step: .retry, to: .downloading, actions: []),  // a stale timer
        Row(from: .downloading, step: .licenseAcquired, to: .downloading, actions: []),
        // The transfer ended by itself: nothing to stop.
        Row(from: .downloading, step: .complete, to: .downloaded,
            actions: [persist(.downloaded), emit(.downloading, .downloaded)]),
        Row(from: .downloading, step: .fail(gone), to: .failed,
            actions: [.stopTransfer, persist(.failed, failure: gone), emit(.downloading, .failed), .reportFailure(gone)]),
        Row(from: .downloading, step: .cancel, to: .canceling,
            actions: [.stopTransfer, persist(.canceling), .deleteMediaFiles, emit(.downloading, .canceling)]),
        // Its own expiry date passed: evicted like a delete, the transfer stopped first.
        Row(from: .downloading, step: .expire, to: .notDownloaded,
            actions: [.stopTransfer] + removeAll + [emit(.downloading, .notDownloaded)]),

        // Paused by the user: only a resume starts it again; the outage is noted meanwhile.
        Row(from: .suspended(.user), step: .resume, to: .downloading,
            actions: [persist(.downloading), emit(.suspended(.user), .downloading), .startTransfer(over: .wifi)]),
        Row(from: .suspended(.user), step: .pause, to: .suspended(.user), actions: []),
        Row(from: .suspended(.user), step: .conditions(.offline), to: .suspended(.user), actions: []),
        Row(from: .suspended(.user), step: .licenseAcquired, to: .suspended(.user), actions: []),
        Row(from: .suspended(.user), step: .retry, to: .suspended(.user), actions: []),

        // Offline: the network's return resumes it; a resume while offline changes nothing.
        Row(from: .suspended(.network), step: .conditions(.favorable), to: .downloading,
            actions: [persist(.downloading), emit(.suspended(.network), .downloading), .startTransfer(over: .wifi)]),
        Row(from: .suspended(.network), step: .pause, to: .suspended(.user),
            actions: [persist(.suspended(.user), paused: true), emit(.suspended(.network), .suspended(.user))]),
        Row(from: .suspended(.network), step: .resume, to: .suspended(.network), actions: []),
        Row(from: .suspended(.network), step: .licenseAcquired, to: .suspended(.network), actions: []),
        Row(from: .suspended(.network), step: .retry, to: .suspended(.network), actions: []),

        // Only cellular, not allowed: WiFi's return (or a cellular-allowing choice) resumes it.
        Row(from: .suspended(.cellularNotAllowed), step: .conditions(.cellular), to: .downloading,
            actions: [persist(.downloading), emit(.suspended(.cellularNotAllowed), .downloading), .startTransfer(over: .cellular)]),
        Row(from: .suspended(.cellularNotAllowed), step: .pause, to: .suspended(.user),
            actions: [persist(.suspended(.user), paused: true), emit(.suspended(.cellularNotAllowed), .suspended(.user))]),
        Row(from: .suspended(.cellularNotAllowed), step: .resume, to: .suspended(.cellularNotAllowed), actions: []),
        Row(from: .suspended(.cellularNotAllowed), step: .licenseAcquired, to: .suspended(.cellularNotAllowed), actions: []),
        Row(from: .suspended(.cellularNotAllowed), step: .retry, to: .suspended(.cellularNotAllowed), actions: []),

        // Low on space: freeing space resumes it.
        Row(from: .suspended(.storage), step: .conditions(.favorable), to: .downloading,
            actions: [persist(.downloading), emit(.suspended(.storage), .downloading), .startTransfer(over: .wifi)]),
        Row(from: .suspended(.storage), step: .pause, to: .suspended(.user),
            actions: [persist(.suspended(.user), paused: true), emit(.suspended(.storage), .suspended(.user))]),
        Row(from: .suspended(.storage), step: .resume, to: .suspended(.storage), actions: []),
        Row(from: .suspended(.storage), step: .licenseAcquired, to: .suspended(.storage), actions: []),
        Row(from: .suspended(.storage), step: .retry, to: .suspended(.storage), actions: []),

        // Needs a license in the background: the foreground brings the exchange with the start;
        // a license that arrives anyway (an exchange finished by prepareForBackground) resumes it.
        Row(from: .suspended(.awaitingForeground), step: .conditions(.favorable), to: .downloading,
            actions: [persist(.downloading, license: true), emit(.suspended(.awaitingForeground), .downloading),
                      .acquireLicense, .startTransfer(over: .wifi)]),
        Row(from: .suspended(.awaitingForeground), step: .licenseAcquired, to: .downloading,
            actions: [persist(.downloading), emit(.suspended(.awaitingForeground), .downloading), .startTransfer(over: .wifi)]),
        Row(from: .suspended(.awaitingForeground), step: .pause, to: .suspended(.user),
            actions: [persist(.suspended(.user), paused: true, license: true),
                      emit(.suspended(.awaitingForeground), .suspended(.user))]),
        Row(from: .suspended(.awaitingForeground), step: .resume, to: .suspended(.awaitingForeground), actions: []),
        Row(from: .suspended(.awaitingForeground), step: .retry, to: .suspended(.awaitingForeground), actions: []),
    ] + SuspensionReason.allCases.flatMap(leaving) + [
        // Settled states: only deletion (or the end of a cancel) leaves them.
        Row(from: .downloaded, step: .delete, to: .notDownloaded, actions: removeAll + [emit(.downloaded, .notDownloaded)]),
        Row(from: .downloaded, step: .conditions(.offline), to: .downloaded, actions: []),
        Row(from: .downloaded, step: .expire, to: .notDownloaded, actions: removeAll + [emit(.downloaded, .notDownloaded)]),
        Row(from: .canceling, step: .cancelFinished, to: .notDownloaded,
            actions: [.deleteRecord, .deleteLicense, emit(.canceling, .notDownloaded)]),
        Row(from: .canceling, step: .cancel, to: .canceling, actions: []),
        Row(from: .canceling, step: .conditions(.offline), to: .canceling, actions: []),
        Row(from: .canceling, step: .expire, to: .canceling, actions: []),  // the cancel removes it anyway
        Row(from: .failed, step: .delete, to: .notDownloaded, actions: removeAll + [emit(.failed, .notDownloaded)]),
        Row(from: .failed, step: .conditions(.offline), to: .failed, actions: []),
        Row(from: .failed, step: .expire, to: .notDownloaded, actions: removeAll + [emit(.failed, .notDownloaded)]),
    ]

    @Test("every legal transition", arguments: rows)
    func legalTransition(_ row: Row) throws {
        var machine = try Fixture.machine(in: row.from)
        let actions = try row.step.apply(to: &machine)
        #expect(machine.state == row.to)
        #expect(actions == row.actions)
    }

    @Test("the rows cover every legal (state, event) pair, and only legal ones")
    func rowsCoverTheLegalTable() {
        let covered = Set(Self.rows.map { "\($0.from) \($0.step.event)" })
        let legal = Set(DownloadState.allCases.flatMap { state in LegalEvents.of(state).map { "\(state) \($0)" } })
        #expect(covered == legal)
    }

    @Test("every illegal (state, event) pair is refused and changes nothing", arguments: DownloadState.allCases)
    func illegalTransitionsAreRefused(_ state: DownloadState) throws {
        let legal = LegalEvents.of(state)
        var refused = 0
        for step in Step.oneOfEach where !legal.contains(step.event) {
            var machine = try Fixture.machine(in: state)
            let before = machine
            #expect(throws: IllegalTransition(state: state, event: step.event)) {
                try step.apply(to: &machine)
            }
            #expect(machine == before, "\(step) changed a machine in \(state)")
            refused += 1
        }
        #expect(refused == DownloadEvent.allCases.count - legal.count)
    }

    @Test("every legal event is accepted in every state", arguments: DownloadState.allCases)
    func legalEventsAreAccepted(_ state: DownloadState) throws {
        for step in Step.oneOfEach where LegalEvents.of(state).contains(step.event) {
            var machine = try Fixture.machine(in: state)
            #expect(throws: Never.self, "\(step) in \(state)") { try step.apply(to: &machine) }
        }
    }
}
