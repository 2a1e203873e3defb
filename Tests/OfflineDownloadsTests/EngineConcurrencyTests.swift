import BenchCore
import FixtureOrigin
import Foundation
import OfflineDownloads
import Synchronization
import Testing

/// How much runs at once: at most `maximumConcurrentDownloads` downloads (default 2)
/// with the rest queued, and several segment fetches inside one download.
@Suite(.timeLimit(.minutes(5))) struct EngineConcurrencyTests {
    final class Events: Sendable {
        let all = Mutex<[EngineEvent]>([])
    }

    @Test func aThirdDownloadWaitsInTheQueueUntilOneFinishes() async throws {
        // Every segment waits 40 ms for its first byte, so the downloads overlap in time.
        try await withEngine({ configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/*/400k/*.ts", fault: .addedTimeToFirstByte(.milliseconds(40)))
            ])
        }) { fixture in
            let manager = try await fixture.makeManager(concurrent: EngineConfiguration(storageDirectory: "/").maximumConcurrentDownloads)
            let events = Events()
            let listener = Task { for await event in manager.events { events.all.withLock { $0.append(event) } } }
            let first = try await manager.requestDownload(video: try await fixture.video("clear"))
            let second = try await manager.requestDownload(video: try await fixture.video("protected"))
            let third = try await manager.requestDownload(video: try await fixture.video("http-key"))
            _ = try await manager.wait(for: first) { $0 == .downloading }
            _ = try await manager.wait(for: second) { $0 == .downloading }
            #expect(await manager.status(third)?.state == .requested)
            for token in [first, second, third] {
                #expect(try await manager.wait(for: token, seconds: 120) { $0 == .downloaded || $0 == .failed } == .downloaded)
            }
            await manager.shutdown()
            listener.cancel()
            // Replay the state changes: never more than two downloading at once, and the
            // third started only after another had finished.
            var downloading: Set<DownloadToken> = []
            var finished: Set<DownloadToken> = []
            var most = 0
            for case .stateChanged(let token, _, let to) in events.all.withLock({ $0 }) {
                if to == .downloading {
                    downloading.insert(token)
                    if token == third { #expect(!finished.isEmpty, "the third started before any other finished") }
                } else {
                    downloading.remove(token)
                }
                if to == .downloaded { finished.insert(token) }
                most = max(most, downloading.count)
            }
            #expect(most == 2)
            // The origin's record says the same: the third asked for nothing before one of
            // the others had its last segment.
            let log = fixture.server.requestLog
            let thirdFirst = log.filter { $0.path.hasPrefix("/videos/http-key/") }.map(\.startedAtNanoseconds).min()
            let firstDone = ["/videos/clear/", "/videos/protected/"].compactMap { Self.spans(log, prefix: $0).map(\.1).max() }.min()
            #expect(thirdFirst != nil && firstDone != nil && thirdFirst! > firstDone!,
                    "the third went to the origin at \(thirdFirst ?? 0) ns, before either other had its last segment (\(firstDone ?? 0) ns)")
        }
    }

    /// The `(start, end)` of every segment request of `prefix`, in nanoseconds.
    static func spans(_ log: [OriginRequestRecord], prefix: String) -> [(UInt64, UInt64)] {
        log.filter { $0.path.hasPrefix(prefix) && $0.path.hasSuffix(".ts") }
            .map { ($0.startedAtNanoseconds, $0.startedAtNanoseconds + $0.durationNanoseconds) }
            .sorted { $0.0 < $1.0 }
    }

    /// Whether any two spans overlap.
    static func overlap(_ spans: [(UInt64, UInt64)]) -> Bool {
        zip(spans, spans.dropFirst()).contains { earlier, later in later.0 < earlier.1 }
    }

    @Test(arguments: [1, 2])
    func segmentsOfOneDownloadAreFetchedInParallel(parallelFetches: Int) async throws {
        // 150 ms before each first byte: two fetches at once must overlap; one at a time never does.
        try await withEngine({ configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/*.ts", fault: .addedTimeToFirstByte(.milliseconds(150)))
            ])
        }) { fixture in
            let manager = try await fixture.makeManager(parallelFetches: parallelFetches)
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            #expect(try await manager.wait(for: token, seconds: 120) { $0 == .downloaded || $0 == .failed } == .downloaded)
            await manager.shutdown()
            // Every segment's record (one may be logged just after the engine stored it).
            let log = try await fixture.server.requestLog(count: 21) { $0.path.hasPrefix("/videos/clear/400k/") && $0.path.hasSuffix(".ts") }
            let spans = Self.spans(log, prefix: "/videos/clear/400k/")
            #expect(spans.count == 21)
            #expect(Self.overlap(spans) == (parallelFetches > 1), "\(parallelFetches) fetches at a time")
        }
    }
}
