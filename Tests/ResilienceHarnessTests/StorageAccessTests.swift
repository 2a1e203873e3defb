import AppProtocol
import Foundation
@testable import ResilienceHarness
import Testing

/// `--storage-sync`: the harness reads an app's storage that lives elsewhere from a copy
/// its sync command makes (a real `sh -c` command) before each read, into an emptied
/// directory; the paths the app names map to the copy, and a sync that fails skips its
/// read and is kept as the scenario's error.
@Suite struct StorageAccessTests {
    /// A scratch directory holding the app's side (`device`) and the harness's copy (`local`).
    struct Sides {
        let root = NSTemporaryDirectory() + "deadzone-storage-sync-\(UUID().uuidString)"
        var device: String { root + "/device/deadzone-s-1-7" }
        var local: String { root + "/local/deadzone-s-1-7" }

        init() throws {
            try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        }

        func write(_ text: String, at relative: String) throws {
            let path = device + "/" + relative
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    static let copy = #"cp -R "$DEADZONE_STORAGE/." "$DEADZONE_SYNC_TO" && echo "$DEADZONE_READ" >> "$DEADZONE_SYNC_TO/../reads""#

    func access(_ sides: Sides, command: String = copy, collector: TraceCollector) -> StorageAccess {
        StorageAccess(
            local: sides.local, app: sides.device, command: command,
            environment: [AppLaunch.Variable.storage: sides.device], collector: collector)
    }

    func syncs(_ collector: TraceCollector) -> [(read: String, error: String?)] {
        collector.entries.compactMap { entry in
            guard case let .harness(.storageSynced(read, _, error)) = entry.event else { return nil }
            return (read, error)
        }
    }

    @Test func pathsTheAppNamesMapIntoTheLocalCopy() {
        let synced = StorageAccess(
            local: "/tmp/here/s", app: "/data/app/s", command: "true", environment: [:], collector: TraceCollector())
        #expect(synced.local("/data/app/s/packages/d1/master.m3u8") == "/tmp/here/s/packages/d1/master.m3u8")
        #expect(synced.local("/data/app/s") == "/tmp/here/s")
        #expect(synced.local("/data/app/sibling/master.m3u8") == "/data/app/sibling/master.m3u8")
        #expect(synced.isSynced)
        let inPlace = StorageAccess(local: "/tmp/here/s")
        #expect(inPlace.local("/tmp/here/s/packages/d1/master.m3u8") == "/tmp/here/s/packages/d1/master.m3u8")
        #expect(inPlace.app == "/tmp/here/s" && !inPlace.isSynced)
    }

    @Test func eachReadSeesAFreshCopyOfTheAppsStorage() throws {
        let sides = try Sides()
        defer { sides.remove() }
        let collector = TraceCollector()
        let storage = access(sides, collector: collector)
        try sides.write("one", at: "a/first")
        let first = storage.read(for: "kill") { local in DiskFile.walk(local).map(\.relativePath).sorted() }
        #expect(first == ["a/first"])
        // The app deletes a file and writes another: the next read sees exactly that.
        try FileManager.default.removeItem(atPath: sides.device + "/a/first")
        try sides.write("two", at: "b/second")
        let second = storage.read(for: "removal") { local in DiskFile.walk(local).map(\.relativePath).sorted() }
        #expect(second == ["b/second"])
        #expect(syncs(collector).map(\.read) == ["kill", "removal"])
        #expect(syncs(collector).allSatisfy { $0.error == nil })
        let told = try String(contentsOfFile: sides.root + "/local/reads", encoding: .utf8)
        #expect(told == "kill\nremoval\n")
        #expect(storage.failure == nil)
    }

    @Test func aSyncThatFailsSkipsItsReadAndIsKept() throws {
        let sides = try Sides()
        defer { sides.remove() }
        let collector = TraceCollector()
        let storage = access(sides, command: "echo no device attached >&2; exit 4", collector: collector)
        var ran = false
        let read: Bool? = storage.read(for: "paused") { _ in
            ran = true
            return true
        }
        #expect(read == nil && !ran)
        let failure = try #require(storage.failure)
        #expect(failure.contains("before a read (paused)") && failure.contains("exit status 4")
            && failure.contains("no device attached"), "\(failure)")
        #expect(syncs(collector).count == 1 && syncs(collector).first?.error != nil)
        // A later sync that works does not hide the first failure.
        let later = StorageAccess(local: sides.local, app: sides.device, command: "true", environment: [:], collector: collector)
        #expect(later.read(for: "kill") { _ in 1 } == 1 && later.failure == nil && storage.failure == failure)
    }

    @Test func aPackageTheAppNamesIsReadFromTheCopy() async throws {
        let package = try ScratchPackage(video: "clear")
        defer { package.remove() }
        try package.store("400k", as: "v.m3u8", in: "v")
        try package.writeMaster(variant: "v.m3u8")
        // The package as the app sees it is `package.root`; the harness reads a copy elsewhere.
        let local = package.scratch + "/copy"
        let collector = TraceCollector()
        let storage = StorageAccess(
            local: local, app: package.scratch, command: #"cp -R "$DEADZONE_STORAGE/pkg" "$DEADZONE_SYNC_TO/""#,
            environment: [AppLaunch.Variable.storage: package.scratch], collector: collector)
        let watch = PackageWatch(collector: collector, origin: package.origin, storage: storage)
        watch.requested("d1", video: "clear")
        await watch.inspected(AppInspection(download: "d1", known: true, state: .downloaded, playable: true, package: package.master))
        let reads = ScenarioTrace(collector.entries).packageReads
        #expect(reads.count == 1)
        #expect(reads.first?.master == package.master, "the read names the path the app gave")
        #expect(reads.first?.found.problems == [], "\(reads.first?.found.problems ?? [])")
        #expect(reads.first?.found.directory.hasPrefix(local) == true, "\(reads.first?.found.directory ?? "")")
        #expect(syncs(collector).map(\.read) == ["inspected"])
    }
}
