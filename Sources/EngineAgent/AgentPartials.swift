import AppProtocol
import Foundation
import OfflineDownloads

/// What the agent finds on disk at launch, before its engine starts: the segments
/// the engine will resume from a `.part` file. `AgentRuntime` reports them as
/// `AppEvent.partialSegmentsFound`, so that `crash-recovery` can require a Range
/// request from each one's size.
///
/// It reads the index (opened and closed again before the engine opens it) and runs
/// the engine's own start-up rule, `PackageFiles.reconcile(segments:)`, over each
/// download's records: a segment that comes out `partial` with bytes is one the engine
/// resumes with `Range: bytes=<bytes>-`. Pure reads, on the agent's main task.
enum AgentPartials {
    /// One partial segment and the `.part` file that holds its bytes.
    struct Found: Sendable, Hashable {
        var segment: AppPartialSegment
        var partFile: String
    }

    /// Every partial segment under `storageDirectory`; none when there is no index yet.
    /// - Throws: when the index exists but cannot be read.
    static func scan(storageDirectory: String) async throws -> [Found] {
        let indexPath = (storageDirectory as NSString).appendingPathComponent("index.sqlite")
        guard FileManager.default.fileExists(atPath: indexPath) else { return [] }
        let index = try DownloadIndex.open(path: indexPath)
        var found: [Found] = []
        do {
            for record in try await index.downloads() where record.snapshot.state != .downloaded {
                let directory = (storageDirectory as NSString).appendingPathComponent(record.packageDirectory)
                let files = PackageFiles(directory: directory)
                let plan = AgentPackage.plan(in: directory)
                let segments = try await index.segments(for: record.token)
                // Init sections (negative indexes) are no segments of the protocol's.
                for segment in files.reconcile(segments: segments)
                where segment.state == .partial && segment.bytes > 0 && segment.index >= 0 {
                    let item = plan?.items.first { $0.stream == segment.stream && $0.index == segment.index }
                    let path = URL(string: segment.uri)?.path ?? segment.uri
                    found.append(Found(
                        segment: AppPartialSegment(
                            download: record.token, stream: segment.stream, index: segment.index, path: path,
                            bytes: segment.bytes, byteRange: item?.rangeHeader),
                        partFile: files.partPath(for: segment)))
                }
            }
        } catch {
            try? index.close()
            throw error
        }
        try index.close()
        return found
    }
}

extension AgentMisbehavior {
    /// `restartPartialSegments`, before the engine starts after a crash: deletes the
    /// `.part` file of every partial segment `found`, so the engine fetches each from
    /// byte 0 instead of resuming it with Range. Returns the number of files deleted.
    static func discardPartialSegments(_ found: [AgentPartials.Found]) -> Int {
        found.filter { (try? FileManager.default.removeItem(atPath: $0.partFile)) != nil }.count
    }
}
