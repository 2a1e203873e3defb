import BenchCore
import Foundation
import OfflineDownloads

/// What each misbehaviour does at the points where `AgentRuntime` lets it act: the
/// path handed to the engine, and the storage before the engine starts. The others
/// act elsewhere: `failOnOutage` in `AgentEventRelay`, `backgroundBeforeLicense` in
/// the `prepareForBackground` command, `hammerRefusedPort` in `AgentReachabilityProbe`
/// (fed by the `setPath` command), `claimsUnstoredSegments` and `claimsDownloadedEarly`
/// in `AgentEventRelay` (the last with `AgentRuntime+Claims.swift`), `fakeLicense` in the
/// `request` and `prepareForBackground` commands, `segmentsBeforeLicense` in the engine's
/// configuration (`AgentOptions.engineConfiguration`), as are `dropsInitSections` and
/// `byteRangeFromZero` (`EngineSabotage`), `bypassConditioner` in the `request` command.
extension AgentMisbehavior {
    /// The path the app hands its engine when the system reports `path`.
    ///
    /// `ignoreCellularPolicy` relabels a cellular interface as an inexpensive,
    /// unconstrained WiFi one with the same endpoint (so its bytes still cross the
    /// cellular link of the conditioner), after the real WiFi when there is one: the
    /// engine then uses cellular for downloads not allowed on it. The others pass the
    /// path through.
    public func pathForEngine(_ path: NetworkPath) -> NetworkPath {
        guard self == .ignoreCellularPolicy else { return path }
        var disguised = path
        // Set after `init` sorted them: the real WiFi stays first, the disguised one after it.
        let cellular = path.interfaces.filter { $0.kind == .cellular }.map {
            PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: $0.endpoint)
        }
        disguised.interfaces = path.interfaces.filter { $0.kind != .cellular } + cellular
        return disguised
    }

    /// `refetchAfterCrash`, before the engine starts after a crash: deletes the stored
    /// segment files of every download not yet downloaded, so the engine, finding
    /// them missing, fetches them all again. The plan (`plan.json`), playlists, keys,
    /// init sections, `.part` files, licenses and the index are kept.
    ///
    /// Downloads already `downloaded` are left alone: the engine would not fetch those
    /// again, so emptying them would break their playback and integrity instead of
    /// the one property this misbehaviour is for (`crash-recovery`).
    /// Returns the number of files deleted. Runs before the engine opens the index.
    static func discardStoredSegments(storageDirectory: String) async throws -> Int {
        let indexPath = (storageDirectory as NSString).appendingPathComponent("index.sqlite")
        guard FileManager.default.fileExists(atPath: indexPath) else { return 0 }
        let index = try DownloadIndex.open(path: indexPath)
        let records: [DownloadRecord]
        do { records = try await index.downloads() } catch {
            try? index.close()
            throw error
        }
        try index.close()
        var deleted = 0
        for record in records where record.snapshot.state != .downloaded {
            let package = (storageDirectory as NSString).appendingPathComponent(record.packageDirectory)
            guard let plan = AgentPackage.plan(in: package) else { continue }
            for item in plan.items where item.kind == .segment {
                let file = (package as NSString).appendingPathComponent(item.localPath)
                if (try? FileManager.default.removeItem(atPath: file)) != nil { deleted += 1 }
            }
        }
        return deleted
    }
}
