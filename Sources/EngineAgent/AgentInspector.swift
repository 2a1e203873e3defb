import AppProtocol
import BenchCore
import Foundation
import OfflineDownloads

/// Answers `inspect`: what the engine says of a download (known, state, license,
/// playable), where its package's master playlist is, and what its package directory
/// holds on disk (files, segment hashes by origin path, playlists that need nothing
/// remote). The harness takes all of it as claims.
///
/// A value; `AgentRuntime` calls it from its command task. The disk reads happen
/// there, after the engine's answers, with no lock held.
public struct AgentInspector: Sendable {
    /// The engine's storage directory: packages are at `<storage>/packages/<token>`.
    public let storageDirectory: String

    /// An inspector of the packages under `storageDirectory`.
    public init(storageDirectory: String) {
        self.storageDirectory = storageDirectory
    }

    /// The package directory of `download`; nil for a token that is not a plain name
    /// (it could leave the packages directory).
    public func packageDirectory(of download: String) -> String? {
        guard !download.isEmpty, !download.contains("/"), download != ".", download != ".." else { return nil }
        return storageDirectory + "/packages/" + download
    }

    /// What `engine` and the disk hold for `download`.
    public func inspect(_ download: String, in engine: DownloadManager) async -> AppInspection {
        let token = DownloadToken(download)
        let status = await engine.status(token)
        let offline = await engine.offlineVideo(token)
        let expiration = status == nil ? nil : await engine.licenseExpiration(token)
        let directory = packageDirectory(of: download)
        let master = directory.map { $0 + "/" + OfflinePackage.masterPlaylistPath }
        // The walk and the hashing of the package read the disk at length: off the pool.
        let disk = await OffPool.run {
            (package: master.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil },
             files: directory.map(AgentPackage.fileCount(in:)) ?? 0,
             hashes: directory.map(AgentPackage.segmentHashes(in:)) ?? [:],
             complete: directory.map(AgentPackage.isComplete) ?? false)
        }
        return AppInspection(
            download: download, known: status != nil, state: status.map { AppState($0.state) },
            playable: offline?.playableOffline ?? false,
            unplayableReason: offline == nil ? "the engine knows no download \(download)" : offline?.unplayableReason,
            licenseExpiration: expiration, package: disk.package, files: disk.files, segmentHashes: disk.hashes,
            packageComplete: disk.complete)
    }
}
