import BenchCore
import FixtureOrigin
import Foundation
@testable import OfflineDownloads
import Testing

/// Segment records reach the index in batches, and a stop at any instant loses no
/// segment whose file was in place, recorded or not.
@Suite(.timeLimit(.minutes(5))) struct EngineProgressBatchingTests {
    @Test func segmentsAreRecordedInFewerWritesThanSegments() async throws {
        try await withEngine { fixture in
            // Batching as configured by default: 21 segments in fewer than 21 writes.
            let batched = try await fixture.makeManager()
            let token = try await batched.requestDownload(video: try await fixture.video("clear"))
            #expect(try await batched.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let batchedWrites = batched.index.progressWriteCount
            let summary = try await batched.index.summary(for: token.rawValue)
            #expect(summary.isComplete && summary.segmentCount == 21, "\(summary)")
            #expect(batchedWrites < 21, "\(batchedWrites) index writes for 21 segments")
            try await batched.delete(token)
            await batched.shutdown()

            // One segment per batch: at least one write per segment (the test can tell them apart).
            let unbatched = try await fixture.makeManager(
                progressBatching: ProgressBatcher.Configuration(maximumPending: 1, maximumDelayNanoseconds: 1_000_000_000))
            let again = try await unbatched.requestDownload(video: try await fixture.video("clear"))
            #expect(try await unbatched.wait(for: again) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(unbatched.index.progressWriteCount >= 21)
            await unbatched.shutdown()
        }
    }

    @Test func segmentsStoredButNotYetRecordedAreNotFetchedAgain() async throws {
        // Segments 10-20 are held a minute, so the download is caught midway.
        try await withEngine(sizeScale: 0.2, { configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/seg1?.ts", fault: .addedTimeToFirstByte(.seconds(60))),
                FaultRule(path: "/videos/clear/400k/seg20.ts", fault: .addedTimeToFirstByte(.seconds(60))),
            ])
        }) { fixture in
            // A batch that never falls due while the download runs.
            let holding = ProgressBatcher.Configuration(maximumPending: 10_000, maximumDelayNanoseconds: 3_600_000_000_000)
            var manager = try await fixture.makeManager(progressBatching: holding)
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            try await manager.wait(for: token, progress: 0.3)
            #expect(manager.index.progressWriteCount == 0, "nothing was written while the batch held")
            await manager.shutdown()
            let mark = fixture.server.nowNanoseconds
            let atStop = StoppedPackage(videoDirectory: fixture.package(token) + "/video")
            #expect(atStop.stored.count >= 5, "\(atStop.stored.count) files in place")
            // A clean stop writes the batch; a crash would not have: put the index back as a
            // crash before the write leaves it (every segment pending, nothing known).
            let index = try DownloadIndex.open(path: fixture.scratch.path + "/index.sqlite")
            let rows = try await index.segments(for: token.rawValue)
            let recorded = Set(rows.filter { $0.state == .complete }.map(\.index))
            #expect(recorded == atStop.stored, "recorded \(recorded.sorted()), on disk \(atStop.stored.sorted()); \(rows.map { "\($0.index):\($0.state):\($0.bytes)" })")
            try await index.execute(sql: """
                UPDATE segment SET state = 'pending', bytes = 0, sha256 = NULL, expectedLength = NULL, etag = NULL
                WHERE token = '\(token.rawValue)'
                """)
            try index.close()

            fixture.server.setFaultRules(try FaultRuleSet(rules: []))
            manager = try await fixture.makeManager(termination: .crash)
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            await manager.shutdown()
            atStop.expectResumed(by: fixture.server.requests(startedAfter: mark), prefix: "/videos/clear/400k/seg")
        }
    }
}
