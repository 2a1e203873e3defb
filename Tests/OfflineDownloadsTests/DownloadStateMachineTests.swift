import BenchCore
import OfflineDownloads
import Testing

/// Stories told event by event: what the manager feeds, what it is told to do.
@Suite("DownloadStateMachine scripts")
struct DownloadStateMachineTests {
    typealias Snapshot = DownloadStateMachine.Snapshot

    @Test("a license exchanged while queued lets the download start in the background")
    func licenseWhileQueued() throws {
        var machine = DownloadStateMachine(conditions: .favorable)
        _ = try machine.downloadRequested(requiresLicense: true)
        // prepareForBackground exchanged it before the slot came.
        #expect(try machine.licenseAcquired() == [.persist(Snapshot(state: .requested, needsLicense: false))])
        #expect(try machine.licenseAcquired() == [])
        _ = machine.conditionsChanged(DownloadConditions(network: .use(.wifi), isForeground: false))
        // In the background, with its license: it starts, and no exchange is asked for.
        #expect(try machine.slotGranted() == [
            .persist(Snapshot(state: .downloading)),
            .emitStateChanged(from: .requested, to: .downloading),
            .startTransfer(over: .wifi),
        ])
        // The same download without the license waits for the foreground instead.
        var without = DownloadStateMachine(conditions: DownloadConditions(network: .use(.wifi), isForeground: false))
        _ = try without.downloadRequested(requiresLicense: true)
        _ = try without.slotGranted()
        #expect(without.state == .suspended(.awaitingForeground))
    }

    @Test("the happy path: request, slot, complete, delete")
    func happyPath() throws {
        var machine = DownloadStateMachine(conditions: .favorable)
        #expect(try machine.downloadRequested(requiresLicense: true) == [
            .persist(Snapshot(state: .requested, needsLicense: true)),
            .emitStateChanged(from: .notDownloaded, to: .requested),
        ])
        // The queue has room: the license exchange and the transfer start together.
        #expect(try machine.slotGranted() == [
            .persist(Snapshot(state: .downloading, needsLicense: true)),
            .emitStateChanged(from: .requested, to: .downloading),
            .acquireLicense,
            .startTransfer(over: .wifi),
        ])
        #expect(machine.transferInterface == .wifi)
        #expect(try machine.licenseAcquired() == [])
        #expect(machine.needsLicense == false)
        #expect(try machine.completed() == [
            .persist(Snapshot(state: .downloaded)),
            .emitStateChanged(from: .downloading, to: .downloaded),
        ])
        // Delete: the record goes first, then the license and the media.
        #expect(try machine.deleteRequested() == [
            .deleteRecord, .deleteLicense, .deleteMediaFiles,
            .emitStateChanged(from: .downloaded, to: .notDownloaded),
        ])
        #expect(machine == DownloadStateMachine(conditions: .favorable))
    }

    @Test("paused during an outage, resumed while still offline: suspended(network), then downloading when WiFi returns")
    func pauseDuringOutage() throws {
        var machine = try Fixture.machine(in: .downloading)
        _ = machine.conditionsChanged(.offline)
        #expect(machine.state == .suspended(.network))
        // The user pauses: the pause wins over the outage.
        _ = try machine.userPaused()
        #expect(machine.state == .suspended(.user))
        // WiFi comes back, but the user has not resumed: still paused, nothing starts.
        #expect(machine.conditionsChanged(.favorable) == [])
        #expect(machine.state == .suspended(.user))
        // WiFi goes again, then the user resumes while offline.
        _ = machine.conditionsChanged(.offline)
        #expect(try machine.userResumed() == [
            .persist(Snapshot(state: .suspended(.network))),
            .emitStateChanged(from: .suspended(.user), to: .suspended(.network)),
        ])
        // The network returns: the download resumes by itself.
        #expect(machine.conditionsChanged(.favorable) == [
            .persist(Snapshot(state: .downloading)),
            .emitStateChanged(from: .suspended(.network), to: .downloading),
            .startTransfer(over: .wifi),
        ])
    }

    @Test("a stall suspends on the network even though the path says satisfied; the retry timer resumes it")
    func stallAndRetry() throws {
        var machine = try Fixture.machine(in: .downloading)
        #expect(try machine.stalled().last == .scheduleRetry)
        #expect(machine.state == .suspended(.network))
        #expect(machine.isStalled)
        // The path did not change (a blackhole): conditions say nothing new.
        #expect(machine.conditionsChanged(.favorable) == [])
        #expect(machine.state == .suspended(.network))
        // The backoff timer fires: try again.
        #expect(try machine.retryDue() == [
            .persist(Snapshot(state: .downloading)),
            .emitStateChanged(from: .suspended(.network), to: .downloading),
            .startTransfer(over: .wifi),
        ])
        // Stalls again, and this time the path moves to cellular (allowed): a new path is a fresh chance.
        _ = try machine.stalled()
        #expect(machine.conditionsChanged(.cellular).last == .startTransfer(over: .cellular))
        #expect(machine.state == .downloading)
        #expect(machine.isStalled == false)
    }

    @Test("WiFi drops with cellular allowed: the transfer moves; WiFi returns: it moves back")
    func interfaceSwitch() throws {
        var machine = try Fixture.machine(in: .downloading)
        #expect(machine.conditionsChanged(.cellular) == [.stopTransfer, .startTransfer(over: .cellular)])
        #expect(machine.transferInterface == .cellular)
        #expect(machine.conditionsChanged(.favorable) == [.stopTransfer, .startTransfer(over: .wifi)])
        #expect(machine.transferInterface == .wifi)
    }

    @Test("a preloaded license is never exchanged again")
    func preloadedLicense() throws {
        var machine = DownloadStateMachine(conditions: .background)
        _ = try machine.licensePreloaded()
        _ = try machine.downloadRequested(requiresLicense: true)
        // In the background, with the license held: nothing stands in the way.
        #expect(try machine.slotGranted().contains(.acquireLicense) == false)
        #expect(machine.state == .downloading)
    }

    @Test("going to the background before the license arrives suspends; the late license resumes")
    func backgroundBeforeLicense() throws {
        var machine = DownloadStateMachine(conditions: .favorable)
        _ = try machine.downloadRequested(requiresLicense: true)
        #expect(try machine.slotGranted().contains(.acquireLicense))
        #expect(machine.conditionsChanged(.background) == [
            .stopTransfer,
            .persist(Snapshot(state: .suspended(.awaitingForeground), needsLicense: true)),
            .emitStateChanged(from: .downloading, to: .suspended(.awaitingForeground)),
        ])
        // prepareForBackground() let the exchange finish: the license is here.
        #expect(try machine.licenseAcquired().last == .startTransfer(over: .wifi))
        #expect(machine.state == .downloading)
        // Once held, the background does not suspend it any more.
        #expect(machine.conditionsChanged(.background) == [])
    }

    @Test("pausing a queued download: recorded, it stays queued, and takes suspended(user) with its slot")
    func pauseWhileQueued() throws {
        var machine = try Fixture.machine(in: .requested)
        #expect(try machine.userPaused() == [.persist(Snapshot(state: .requested, isPausedByUser: true))])
        #expect(try machine.userPaused() == [])  // idempotent
        #expect(try machine.slotGranted() == [
            .persist(Snapshot(state: .suspended(.user), isPausedByUser: true)),
            .emitStateChanged(from: .requested, to: .suspended(.user)),
        ])
        #expect(try machine.userResumed().last == .startTransfer(over: .wifi))
    }

    @Test("a slot granted while offline goes straight to suspended(network), without starting a transfer")
    func slotWhileOffline() throws {
        var machine = try Fixture.machine(in: .requested)
        _ = machine.conditionsChanged(.offline)
        #expect(try machine.slotGranted() == [
            .persist(Snapshot(state: .suspended(.network))),
            .emitStateChanged(from: .requested, to: .suspended(.network)),
        ])
    }

    @Test("cancel, then request again: nothing of the old download remains")
    func cancelThenRequestAgain() throws {
        var machine = try Fixture.machine(in: .suspended(.user))
        _ = try machine.cancelRequested()
        #expect(try machine.cancelRequested() == [])  // a second tap while files are removed
        _ = try machine.cancelFinished()
        #expect(machine.state == .notDownloaded)
        #expect(machine.isPausedByUser == false)
        #expect(try machine.downloadRequested(requiresLicense: false) == [
            .persist(Snapshot(state: .requested)),
            .emitStateChanged(from: .notDownloaded, to: .requested),
        ])
    }

    @Test("refusals say what to do instead")
    func refusalHints() throws {
        var machine = try Fixture.machine(in: .downloading)
        do {
            _ = try machine.deleteRequested()
            Issue.record("delete while downloading was accepted")
        } catch {
            #expect(error == IllegalTransition(state: .downloading, event: .deleteRequested))
            #expect(error.description == "cannot deleteRequested while downloading: cancel the download first")
        }
        #expect(IllegalTransition(state: .failed, event: .downloadRequested).hint
            == "delete the failed download, then request it again")
        #expect(IllegalTransition(state: .downloaded, event: .downloadRequested).hint
            == "the download already exists; delete it first")
        #expect(IllegalTransition(state: .notDownloaded, event: .completed).hint == nil)
    }
}
