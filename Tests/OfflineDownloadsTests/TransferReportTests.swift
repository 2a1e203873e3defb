import BenchCore
import Foundation
import Testing

@testable import OfflineDownloads

/// The one place a transfer's reports become what the download records and the input
/// its state machine is fed (`DownloadEntry.take(_:from:)`, taken by
/// `DownloadManager.take(_:)`): fake report sequences, no network, no worker.
@Suite struct TransferReportTests {
    static let wifi = PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "127.0.0.1:1")

    /// A download `downloading` over WiFi whose current transfer is `transferID` 7.
    static func downloading() throws -> DownloadEntry {
        let conditions = DownloadConditions(network: InterfaceChoice(path: NetworkPath(interfaces: [wifi]), allowsCellular: false))
        var machine = DownloadStateMachine(conditions: conditions)
        _ = try machine.downloadRequested(requiresLicense: false)
        _ = try machine.slotGranted()
        #expect(machine.state == .downloading)
        var entry = DownloadEntry(
            record: StoreFixtures.download(), machine: machine,
            retry: RetryBackoff(configuration: .init(maximumAttempts: 5), generator: SeededGenerator(seed: 1)))
        entry.transferID = 7
        entry.transfer = Task {}
        return entry
    }

    /// Takes `reports` of transfer `transferID` in order and feeds each state-machine
    /// input the way the manager does (a package written without error counts as
    /// `completed`); returns the steps and every action the machine returned.
    static func drive(
        _ entry: inout DownloadEntry, _ reports: [TransferReport], from transferID: Int = 7
    ) throws -> (steps: [ReportStep], actions: [DownloadAction]) {
        var steps: [ReportStep] = []
        var actions: [DownloadAction] = []
        for report in reports {
            let step = entry.take(report, from: transferID)
            steps.append(step)
            switch step {
            case .feed(let input, _): actions += try input.apply(to: &entry.machine)
            case .writePackage: actions += try TransferInput.completed.apply(to: &entry.machine)
            default: break
            }
        }
        return (steps, actions)
    }

    static func segment(_ index: Int, of total: Int, bytes: Int64 = 100, draining: Bool = false) -> TransferReport {
        .segmentStored(StoredSegment(
            stream: "video", index: index, bytes: bytes, uri: "http://h/seg\(index).ts",
            streamFraction: Double(index + 1) / Double(total), draining: draining))
    }

    static func planned(complete: Int, of total: Int) -> TransferReport {
        let segments = (0..<total).map {
            StoreFixtures.segment(index: $0, bytes: $0 < complete ? 100 : 0, state: $0 < complete ? .complete : .pending)
        }
        return .planned(PlannedTransfer(
            selection: StoredSelection(variantURI: "v.m3u8", bandwidth: 1), bytesExpected: 300, segments: segments))
    }

    @Test func plannedSegmentsThenFinishedCompleteTheDownload() throws {
        var entry = try Self.downloading()
        let plan = try PackageFixtures.fixturePlan()
        let (steps, actions) = try Self.drive(
            &entry, [Self.planned(complete: 1, of: 3), Self.segment(1, of: 3), Self.segment(2, of: 3), .finished(plan)])
        #expect(steps[0] == .recorded(events: [], save: true))
        let streams = plan.items.reduce(into: [String]()) { if !$0.contains($1.stream) { $0.append($1.stream) } }
        #expect(steps[3] == .writePackage(plan, events: streams.filter { $0 != "video" }.map {
            .progress(entry.token, selection: $0, fraction: 1)
        }), "video was told 1 by its last segment; the plan's other streams are told at the end")
        #expect(entry.segmentCount == 3 && entry.completedSegments == 3)
        #expect(entry.record.bytesDownloaded == 300 && entry.record.bytesExpected == 300)
        #expect(entry.machine.state == .downloaded)
        #expect(actions.contains(.emitStateChanged(from: .downloading, to: .downloaded)))
        #expect(entry.transfer == nil, "the last report ends the transfer")
    }

    /// A relaunched download whose last segments an earlier process stored (and was
    /// killed before telling) finds nothing left to fetch: its transfer finishes at once,
    /// and each stream's progress is told 1 before it is downloaded, never left short.
    @Test func aTransferThatFindsEverythingStoredTellsEachStreamsProgressOne() throws {
        var entry = try Self.downloading()
        let plan = try PackageFixtures.fixturePlan()
        let (steps, _) = try Self.drive(&entry, [Self.planned(complete: 3, of: 3), .finished(plan)])
        guard case .writePackage(_, let events) = steps[1] else {
            Issue.record("not a package write: \(steps[1])")
            return
        }
        let streams = Set(plan.items.map(\.stream))
        #expect(!streams.isEmpty)
        #expect(Set(events) == Set(streams.map { EngineEvent.progress(entry.token, selection: $0, fraction: 1) }))
        #expect(streams.allSatisfy { entry.progress[$0] == 1 })
    }

    @Test func aStoredSegmentTellsItsSegmentAndItsStreamsProgressNeverBackwards() throws {
        var entry = try Self.downloading()
        let token = entry.token
        let (steps, _) = try Self.drive(&entry, [Self.segment(1, of: 2), Self.segment(0, of: 4)])
        #expect(steps[0] == .recorded(events: [
            .segmentStored(token, stream: "video", index: 1, bytes: 100, uri: "http://h/seg1.ts"),
            .progress(token, selection: "video", fraction: 1),
        ], save: false))
        // 0.25 < 1: the segment is told, the progress is not.
        #expect(steps[1] == .recorded(events: [
            .segmentStored(token, stream: "video", index: 0, bytes: 100, uri: "http://h/seg0.ts")
        ], save: false))
        #expect(entry.progress["video"] == 1)
    }

    @Test func aNetworkFailureSuspendsForTheNetworkAndRetriesWithoutBound() throws {
        var entry = try Self.downloading()
        let (steps, actions) = try Self.drive(&entry, [Self.segment(0, of: 3), .failed(.transport(.stalled))])
        #expect(steps[1] == .feed(.stalled))
        #expect(entry.machine.state == .suspended(.network))
        #expect(actions.last == .scheduleRetry)
        #expect(entry.nextRetryKind == .network)
        #expect(entry.lastError == TransportError.stalled.description)
    }

    /// The license exchange the transfer waited for failed for a passing reason: the
    /// download suspends and retries like after a server error, counted against the
    /// bounded attempts; neither failed for good nor left `downloading` without a transfer.
    @Test func aPassingLicenseFailureStallsAndCountsAgainstTheBoundedAttempts() throws {
        var entry = try Self.downloading()
        let (steps, actions) = try Self.drive(&entry, [Self.planned(complete: 0, of: 3), .failed(.license("HTTP 503"))])
        #expect(steps[1] == .feed(.stalled))
        #expect(entry.machine.state == .suspended(.network))
        #expect(actions.last == .scheduleRetry)
        #expect(entry.nextRetryKind == .other)
        #expect(entry.lastError == "no license yet: HTTP 503")
    }

    @Test func aServerErrorStallsCountedButARefusalFailsForGood() throws {
        var retried = try Self.downloading()
        _ = try Self.drive(&retried, [.failed(.transport(.status(503, retryAfter: nil)))])
        #expect(retried.machine.state == .suspended(.network) && retried.nextRetryKind == .other)

        var refused = try Self.downloading()
        let (steps, _) = try Self.drive(&refused, [.failed(.transport(.status(404, retryAfter: nil)))])
        #expect(steps == [.feed(.permanentFailure(.httpStatus(404)))])
        #expect(refused.machine.state == .failed && refused.machine.failure == .httpStatus(404))
    }

    @Test func aFullDiskSuspendsEveryDownloadInsteadOfFailingThisOne() throws {
        for failure: TransferFailure in [.lowStorage(free: 10), .transport(.storage("ENOSPC", noSpace: true))] {
            var entry = try Self.downloading()
            let (steps, actions) = try Self.drive(&entry, [.failed(failure)])
            #expect(steps == [.storageShort(failure)])
            #expect(actions.isEmpty && entry.machine.state == .downloading, "the manager's storage condition decides")
        }
        var broken = try Self.downloading()
        _ = try Self.drive(&broken, [.failed(.transport(.storage("EIO", noSpace: false)))])
        #expect(broken.machine.failure == .storage("EIO"))
    }

    /// A stopped transfer (pause, path change: the download's transfer id moved on) still
    /// counts what it stored, but its last report decides nothing.
    @Test func aStoppedTransfersSegmentsCountButItsLastReportIsIgnored() throws {
        var entry = try Self.downloading()
        let (steps, actions) = try Self.drive(&entry, [Self.segment(0, of: 3), .failed(.transport(.stalled))], from: 6)
        #expect(steps[1] == .ignored)
        #expect(actions.isEmpty && entry.machine.state == .downloading)
        #expect(entry.completedSegments == 1 && entry.transfer != nil && entry.transferID == 7)
    }

    /// Only the first last report of the current transfer counts: a canceled transfer
    /// changes nothing, and anything after it is stale.
    @Test func onlyTheFirstLastReportOfATransferCounts() throws {
        var entry = try Self.downloading()
        let (steps, actions) = try Self.drive(&entry, [.failed(.transport(.canceled)), .failed(.transport(.stalled))])
        #expect(steps == [.canceled, .ignored])
        #expect(actions.isEmpty && entry.machine.state == .downloading && entry.transferID == 8)
    }

    /// Bytes flowing reset the bounded attempts, but not the segments that finish while
    /// a failed transfer drains: they say nothing of the failure's cause.
    @Test func drainingSegmentsDoNotResetTheRetryCount() throws {
        var entry = try Self.downloading()
        _ = entry.retry.failed(.other, now: 0)
        _ = try Self.drive(&entry, [Self.segment(0, of: 3, draining: true)])
        #expect(entry.retry.boundedFailures == 1)
        _ = try Self.drive(&entry, [Self.segment(1, of: 3)])
        #expect(entry.retry.boundedFailures == 0)
    }

    /// The queue keeps each transfer's reports in order, tagged with where they come from.
    @Test func theQueueKeepsReportsInOrderTaggedWithTheirTransfer() async {
        let reports = TransferReports()
        let first = reports.reporter(for: DownloadToken("a"), transferID: 1)
        let second = reports.reporter(for: DownloadToken("b"), transferID: 2)
        first.send(Self.segment(0, of: 2))
        second.send(.failed(.transport(.stalled)))
        first.send(.failed(.license("x")))
        reports.finish()
        var taken: [String] = []
        for await tagged in reports.stream {
            taken.append("\(tagged.token.rawValue)\(tagged.transferID) \(tagged.report.isLast)")
        }
        #expect(taken == ["a1 false", "b2 true", "a1 true"])
    }
}
