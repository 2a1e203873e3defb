import BenchCore
import FixtureOrigin
import Foundation
import OfflineDownloads
import Synchronization
import TestSupport
import Testing

/// Every terminal state has its end time, read from the injected wall clock
/// (`EngineConfiguration.now`), which the test moves between the steps so that each
/// stamp says which step made it: `finishedAt` for `downloaded` and `failed` (also
/// after a relaunch, from the index), the `removed` event for a cancel and a delete.
@Suite(.timeLimit(.minutes(5))) struct EngineEndTimeTests {
    /// A wall clock that says what the test set last.
    final class SetClock: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: @Sendable () -> Date { { [self] in date.withLock { $0 } } }
        func set(_ seconds: TimeInterval) { date.withLock { $0 = Date(timeIntervalSince1970: 1_800_000_000 + seconds) } }
        static func at(_ seconds: TimeInterval) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + seconds) }
    }

    final class Events: Sendable {
        let all = Mutex<[EngineEvent]>([])
        func removed(_ token: DownloadToken) -> [Date] {
            all.withLock { $0.compactMap { if case .removed(token, let at) = $0 { at } else { nil } } }
        }
        /// Waits (up to a minute) for `token`'s `removed`.
        func waitRemoved(_ token: DownloadToken, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [Date] {
            await eventually("the removed event of \(token)", sourceLocation: sourceLocation) { !removed(token).isEmpty }
            return removed(token)
        }
    }

    /// The origin for both tests: segment 2 of `clear` is held for 30 s the first time it
    /// is asked for (so a download of it is still in flight when the test pauses it), and
    /// segment 5 of `multilang` is gone (a permanent failure).
    static func faults(_ configuration: inout OriginConfiguration) {
        configuration.faultRules = try! FaultRuleSet(rules: [
            FaultRule(path: "/videos/clear/400k/seg2.ts", fault: .addedTimeToFirstByte(.seconds(30)), count: 1),
            FaultRule(path: "/videos/multilang/400k/seg5.ts", fault: .status(404, retryAfter: nil)),
        ])
    }

    @Test func downloadedAndFailedKeepWhenTheyEnded() async throws {
        try await withEngine(Self.faults) { fixture in
            let clock = SetClock()
            let manager = try await fixture.makeManager(stallTimeout: .seconds(60), now: clock.now)
            let clear = try await fixture.video("clear")
            let multilang = try await fixture.video("multilang")
            // Requested at 0 with no network: both wait.
            fixture.showPath([])
            let done = try await manager.requestDownload(video: clear)
            let broken = try await manager.requestDownload(video: multilang)
            #expect(try await manager.wait(for: broken) { $0 == .suspended(.network) } == .suspended(.network))
            // At 10 the network is back: `broken` fails at once, `done` stops at segment 2.
            clock.set(10)
            fixture.showPath([.wifi])
            #expect(try await manager.wait(for: broken) { $0 == .failed || $0 == .downloaded } == .failed)
            try await manager.wait(for: done, progress: 0.5)
            let failed = try #require(await manager.status(broken))
            #expect(failed.failure == .httpStatus(404))
            #expect(failed.requestedAt == SetClock.at(0) && failed.finishedAt == SetClock.at(10))
            #expect(await manager.status(done)?.finishedAt == nil, "in flight: no end yet")
            // At 20 the user pauses `done`, at 30 resumes it: it completes after 30.
            clock.set(20)
            try await manager.pause(done)
            #expect(try await manager.wait(for: done) { $0 == .suspended(.user) } == .suspended(.user))
            clock.set(30)
            try await manager.resume(done)
            #expect(try await manager.wait(for: done) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let downloaded = try #require(await manager.status(done))
            #expect(downloaded.startedAt == SetClock.at(10) && downloaded.finishedAt == SetClock.at(30))
            await manager.shutdown()

            // The index kept both ends: a relaunch (at 40) reports them unchanged.
            clock.set(40)
            let relaunched = try await fixture.makeManager(now: clock.now)
            #expect(await relaunched.status(broken)?.finishedAt == SetClock.at(10))
            #expect(await relaunched.status(done)?.finishedAt == SetClock.at(30))
            await relaunched.shutdown()
        }
    }

    @Test func cancelAndDeleteTellWhenTheyEnded() async throws {
        try await withEngine(Self.faults) { fixture in
            let clock = SetClock()
            let manager = try await fixture.makeManager(stallTimeout: .seconds(60), now: clock.now)
            let events = Events()
            let listener = Task { for await event in manager.events { events.all.withLock { $0.append(event) } } }
            let clear = try await fixture.video("clear")
            // A download in flight (held at segment 2) is cancelled at 10.
            let canceled = try await manager.requestDownload(video: clear)
            try await manager.wait(for: canceled, progress: 0.2)
            clock.set(10)
            try await manager.cancel(canceled)
            #expect(await manager.status(canceled) == nil)
            #expect(try await events.waitRemoved(canceled) == [SetClock.at(10)])
            // A failed download is deleted at 20, a downloaded one at 30.
            let failed = try await manager.requestDownload(video: try await fixture.video("multilang"))
            #expect(try await manager.wait(for: failed) { $0 == .failed || $0 == .downloaded } == .failed)
            let downloaded = try await manager.requestDownload(video: clear)  // segment 2's hold is spent
            #expect(try await manager.wait(for: downloaded) { $0 == .downloaded || $0 == .failed } == .downloaded)
            clock.set(20)
            try await manager.delete(failed)
            clock.set(30)
            try await manager.delete(downloaded)
            #expect(try await events.waitRemoved(failed) == [SetClock.at(20)])
            #expect(try await events.waitRemoved(downloaded) == [SetClock.at(30)])
            // Each `removed` comes right after its change to notDownloaded.
            let order = events.all.withLock { all in
                all.compactMap { event -> String? in
                    switch event {
                    case .stateChanged(let token, _, .notDownloaded) where token == downloaded: "notDownloaded"
                    case .removed(let token, _) where token == downloaded: "removed"
                    default: nil
                    }
                }
            }
            #expect(order == ["notDownloaded", "removed"])
            await manager.shutdown()
            listener.cancel()
        }
    }
}
