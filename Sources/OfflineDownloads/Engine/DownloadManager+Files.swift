import Foundation

/// The files of one stream of a complete download, in playlist order: for tools that
/// use the engine as a black-box client and compare what it stored with the origin.
public struct StoredStream: Sendable, Hashable {
    /// The stream: `video`, `audio_<lang>` or `subs_<lang>`.
    public var name: String
    /// Its media segment files, in playlist order (one file per EXT-X-BYTERANGE range).
    public var segments: [URL]
    /// Whether its segments are encrypted (an EXT-X-KEY other than NONE): their bytes
    /// are what the origin served, not playable media without the key.
    public var isEncrypted: Bool
    /// Whether its segments need an EXT-X-MAP init section, which `segments` leaves out.
    public var hasInitSection: Bool
}

extension DownloadManager {
    /// The stored files of stream `name` (default: the chosen video variant) of the
    /// complete download `token`, from its plan.
    /// - Throws: `EngineError.unknownToken`; `.notPermitted` when the download is not
    ///   complete or has no such stream.
    public func storedStream(_ token: DownloadToken, named name: String = "video") async throws(EngineError) -> StoredStream {
        guard let entry = entries[token] else { throw .unknownToken(token) }
        guard entry.machine.state == .downloaded else {
            throw .notPermitted("download \(token) is \(entry.machine.state), not complete; wait for `downloaded`")
        }
        let directory = packagePath(entry.record.packageDirectory)
        guard let data = FileManager.default.contents(atPath: directory + "/" + DownloadPlan.packageFileName),
            let plan = try? JSONDecoder().decode(DownloadPlan.self, from: data)
        else { throw .notPermitted("download \(token) has no readable \(DownloadPlan.packageFileName); delete it and request it again") }
        guard plan.stream(named: name) != nil else {
            throw .notPermitted("download \(token) has no stream \(name); it has \(plan.streams.map(\.name).joined(separator: ", "))")
        }
        let items = plan.segments(ofStream: name)
        return StoredStream(
            name: name, segments: items.map { URL(fileURLWithPath: directory + "/" + $0.localPath) },
            isEncrypted: items.contains { $0.key != nil }, hasInitSection: items.contains { $0.initSectionPath != nil })
    }
}
