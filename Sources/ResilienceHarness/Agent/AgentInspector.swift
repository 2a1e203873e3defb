import Foundation
import OfflineDownloads

/// Answers `AgentCommand.inspect`: what the engine says of a download (known, state,
/// license, playable) and what its package directory holds on disk (files, segment
/// hashes by origin path, playlists that need nothing remote).
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
    public func inspect(_ download: String, in engine: DownloadManager) async -> AgentInspection {
        let token = DownloadToken(download)
        let status = await engine.status(token)
        let offline = await engine.offlineVideo(token)
        let expiration = status == nil ? nil : await engine.licenseExpiration(token)
        let directory = packageDirectory(of: download)
        return AgentInspection(
            download: download, known: status != nil, state: status?.state,
            files: directory.map(AgentPackage.fileCount(in:)) ?? 0, licenseExpiration: expiration,
            playable: offline?.playableOffline ?? false,
            unplayableReason: offline == nil ? "the engine knows no download \(download)" : offline?.unplayableReason,
            segmentHashes: directory.map(AgentPackage.segmentHashes(in:)) ?? [:],
            packageComplete: directory.map(AgentPackage.isComplete) ?? false)
    }
}
