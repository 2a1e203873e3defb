import BenchCore
import Foundation
import OfflineDownloads
import Testing

/// Start-up recovery: each persisted state after each way the last process ended.
@Suite("DownloadStateMachine restore")
struct DownloadRestoreTests {
    typealias Snapshot = DownloadStateMachine.Snapshot

    static let survivable: [ProcessTermination] = [.clean, .crash, .memoryPressure]
    static let fatal: [ProcessTermination] = [.userForceQuit, .rebootWhileSuspended]

    @Test("the split of terminations follows the SDK guides")
    func terminationKinds() {
        #expect(ProcessTermination.allCases.filter(\.losesDownloadsInFlight) == Self.fatal)
    }

    @Test("a download in flight resumes after a survivable end", arguments: survivable)
    func inFlightResumes(_ termination: ProcessTermination) throws {
        // Downloading before: it starts again; the state did not change, so nothing is persisted or emitted.
        var downloading = DownloadStateMachine(conditions: .favorable)
        #expect(try downloading.restored(Snapshot(state: .downloading), after: termination) == [.startTransfer(over: .wifi)])
        #expect(downloading.state == .downloading)

        // Suspended on the network before, WiFi up now: it resumes.
        var suspended = DownloadStateMachine(conditions: .favorable)
        #expect(try suspended.restored(Snapshot(state: .suspended(.network)), after: termination) == [
            .persist(Snapshot(state: .downloading)),
            .emitStateChanged(from: .suspended(.network), to: .downloading),
            .startTransfer(over: .wifi),
        ])

        // Downloading before, offline now: it settles in suspended(network).
        var offline = DownloadStateMachine(conditions: .offline)
        _ = try offline.restored(Snapshot(state: .downloading), after: termination)
        #expect(offline.state == .suspended(.network))

        // Paused by the user: the pause survives.
        var paused = DownloadStateMachine(conditions: .favorable)
        #expect(try paused.restored(Snapshot(state: .suspended(.user), isPausedByUser: true), after: termination) == [])
        #expect(paused.state == .suspended(.user))
        #expect(try paused.userResumed().last == .startTransfer(over: .wifi))
    }

    @Test("a license still missing is exchanged when the restored download starts")
    func restoredNeedsLicense() throws {
        var machine = DownloadStateMachine(conditions: .favorable)
        let actions = try machine.restored(
            Snapshot(state: .suspended(.awaitingForeground), needsLicense: true), after: .crash)
        #expect(actions.suffix(2) == [.acquireLicense, .startTransfer(over: .wifi)])
        #expect(machine.needsLicense)
    }

    @Test("a download in flight is reported failed at once after force-quit or reboot while suspended",
          arguments: fatal, [DownloadState.downloading] + SuspensionReason.allCases.map { .suspended($0) })
    func inFlightFails(_ termination: ProcessTermination, _ persisted: DownloadState) throws {
        var machine = DownloadStateMachine(conditions: .favorable)
        let failure = DownloadFailure.interrupted(termination)
        let actions = try machine.restored(
            Snapshot(state: persisted, isPausedByUser: persisted == .suspended(.user)), after: termination)
        #expect(actions == [
            .persist(Snapshot(state: .failed, failure: failure)),
            .emitStateChanged(from: persisted, to: .failed),
            .reportFailure(failure),
        ])
        #expect(machine.failure == failure)
        // The user can then delete it like any other download.
        #expect(try machine.deleteRequested().first == .deleteRecord)
    }

    @Test("settled and queued downloads come back as they were, whatever the end",
          arguments: ProcessTermination.allCases, [DownloadState.notDownloaded, .requested, .licensePreloaded, .downloaded])
    func settledStay(_ termination: ProcessTermination, _ persisted: DownloadState) throws {
        var machine = DownloadStateMachine(conditions: .offline)
        #expect(try machine.restored(Snapshot(state: persisted), after: termination) == [])
        #expect(machine.state == persisted)
    }

    @Test("a failed download keeps its cause; an index without one says so", arguments: ProcessTermination.allCases)
    func failedStays(_ termination: ProcessTermination) throws {
        var recorded = DownloadStateMachine(conditions: .favorable)
        _ = try recorded.restored(Snapshot(state: .failed, failure: .httpStatus(404)), after: termination)
        #expect(recorded.failure == .httpStatus(404))
        var unrecorded = DownloadStateMachine(conditions: .favorable)
        _ = try unrecorded.restored(Snapshot(state: .failed), after: termination)
        #expect(unrecorded.failure == .unrecorded)
    }

    @Test("an interrupted cancel finishes removing the files", arguments: ProcessTermination.allCases)
    func cancelingFinishes(_ termination: ProcessTermination) throws {
        var machine = DownloadStateMachine(conditions: .favorable)
        #expect(try machine.restored(Snapshot(state: .canceling), after: termination) == [.deleteMediaFiles])
        #expect(try machine.cancelFinished().prefix(2) == [.deleteRecord, .deleteLicense])
    }

    @Test("a queued download keeps its pause across a restore")
    func queuedPauseSurvives() throws {
        var machine = DownloadStateMachine(conditions: .favorable)
        _ = try machine.restored(Snapshot(state: .requested, isPausedByUser: true), after: .crash)
        _ = try machine.slotGranted()
        #expect(machine.state == .suspended(.user))
    }

    @Test("a snapshot persisted by the machine restores to an equal machine")
    func snapshotRoundTrip() throws {
        let original = try Fixture.machine(in: .suspended(.awaitingForeground))
        let json = try JSONEncoder().encode(original.snapshot)
        #expect(String(decoding: json, as: UTF8.self).contains("\"suspended(awaitingForeground)\""))
        let decoded = try JSONDecoder().decode(Snapshot.self, from: json)
        var restored = DownloadStateMachine(conditions: .background)
        _ = try restored.restored(decoded, after: .crash)
        #expect(restored == original)
    }
}
