import AppProtocol
import Foundation
@testable import ResilienceHarness
import TestSupport
import Testing

/// When the harness reads a package: as soon as the app names the package of a
/// download it reported downloaded, at each inspection naming one, and a read with no
/// master when the app names none in time.
@Suite struct PackageWatchTests {
    /// A whole package of the clear video's 400k rendition, and a watch over its origin.
    func setUp(bound: Duration = .seconds(5)) throws -> (ScratchPackage, TraceCollector, PackageWatch) {
        let package = try ScratchPackage(video: "clear")
        try package.store("400k", as: "v.m3u8", in: "v")
        try package.writeMaster(variant: "v.m3u8")
        let collector = TraceCollector()
        let watch = PackageWatch(
            collector: collector, origin: package.origin, storage: StorageAccess(local: package.scratch), packageBound: bound)
        watch.requested("d1", video: "clear")
        return (package, collector, watch)
    }

    func reads(_ collector: TraceCollector) -> [TracedPackageRead] {
        ScenarioTrace(collector.entries).packageReads
    }

    @Test func aDownloadReportedDownloadedIsReadWhenTheAppNamesItsPackage() async throws {
        let (package, collector, watch) = try setUp()
        defer { package.remove() }
        watch.observe(.stateChanged(download: "d1", from: .downloading, to: .downloaded))
        // Until the package is named, and then until it is read, the script's triggers wait.
        #expect(watch.isBusy && reads(collector).isEmpty)
        watch.observe(.finished(download: "d1", package: package.master))
        await eventually("the read of the named package") { !watch.isBusy }
        let read = try #require(reads(collector).first)
        #expect(reads(collector).count == 1)
        #expect(read.download == "d1" && read.cause == .downloaded && read.master == package.master)
        #expect(read.found.playlists.map(\.rendition) == ["/videos/clear/400k/index.m3u8"])
        #expect(read.found.playlists.first?.isComplete == true)
    }

    /// The scenario's end drains the reads asked for: one the app's last `finished` asked
    /// for is in the trace when it is collected, however late a busy machine runs it.
    @Test func drainReturnsOnceEveryReadAskedForIsRecorded() async throws {
        let (package, collector, watch) = try setUp()
        defer { package.remove() }
        watch.observe(.stateChanged(download: "d1", from: .downloading, to: .downloaded))
        watch.observe(.finished(download: "d1", package: package.master))
        await watch.drain()
        #expect(reads(collector).map(\.cause) == [.downloaded])
        #expect(!watch.isBusy)
    }

    @Test func aPackageNamedBeforeTheReportIsReadAtTheReport() async throws {
        let (package, collector, watch) = try setUp()
        defer { package.remove() }
        watch.observe(.finished(download: "d1", package: package.master))
        #expect(reads(collector).isEmpty && !watch.isBusy)
        watch.observe(.stateChanged(download: "d1", from: .downloading, to: .downloaded))
        await eventually("the read begun at the report") { !watch.isBusy }
        #expect(reads(collector).map(\.cause) == [.downloaded])
    }

    @Test func anInspectionNamingThePackageIsFollowedByARead() async throws {
        let (package, collector, watch) = try setUp()
        defer { package.remove() }
        await watch.inspected(AppInspection(download: "d1", known: true, state: .downloaded, playable: true, package: package.master))
        await watch.inspected(AppInspection(download: "d1", known: false, state: nil, playable: false))
        #expect(reads(collector).map(\.cause) == [.inspected])
    }

    @Test func aPackageNeverNamedIsRecordedAsAReadWithoutMaster() async throws {
        let (package, collector, watch) = try setUp(bound: .milliseconds(50))
        defer { package.remove() }
        watch.observe(.stateChanged(download: "d1", from: .downloading, to: .downloaded))
        await eventually("the watch giving up on the package after its 50 ms bound") { !watch.isBusy }
        let read = try #require(reads(collector).first)
        #expect(read.master == nil && read.found.problems == ["the app named no package within 0.050 s of reporting it downloaded"])
        // The app ending, or leaving the state, before naming it counts alike.
        watch.observe(.stateChanged(download: "d1", from: .downloading, to: .downloaded))
        watch.agentEnded()
        watch.observe(.stateChanged(download: "d1", from: .downloading, to: .downloaded))
        watch.observe(.stateChanged(download: "d1", from: .downloaded, to: .notDownloaded))
        #expect(reads(collector).map(\.found.problems) == [
            ["the app named no package within 0.050 s of reporting it downloaded"],
            ["the app ended without naming its package"],
            ["the app reported it notDownloaded before naming its package"],
        ])
    }

    @Test func aKillBeforeThePackageIsNamedIsOnlyNoted() throws {
        let (package, collector, watch) = try setUp()
        defer { package.remove() }
        watch.observe(.stateChanged(download: "d1", from: .downloading, to: .downloaded))
        watch.agentKilled()
        #expect(!watch.isBusy && reads(collector).isEmpty)
        #expect(ScenarioTrace(collector.entries).notes.first?.text.contains("killed before naming") == true)
    }
}
