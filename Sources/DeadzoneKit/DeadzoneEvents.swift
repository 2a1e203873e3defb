import Foundation

/// Where the app reports what happens, from any thread, in the order it happened. Each
/// method checks its line against the protocol before it writes it: a line the harness
/// would refuse (and end the scenario over) is not written, and the method throws
/// `KitError.invalid` saying why. The clock (`t`) is stamped here.
// @unchecked: `states` is read and written only under `lock`, and `writer` is thread-safe
// (its own lock). NSLock, not Mutex: Mutex needs iOS 18 / macOS 15, the kit builds for less.
public final class DeadzoneEvents: @unchecked Sendable {
    private let writer: LineWriter
    private let lock = NSLock()
    /// The last state reported per download by this process: a `stateChanged` whose
    /// `from` disagrees with it is refused.
    private var states: [String: DownloadState] = [:]

    init(writer: LineWriter) { self.writer = writer }

    /// `stateChanged`. `from` must be the state this process last reported for the
    /// download, when it reported one.
    public func stateChanged(_ download: String, from: DownloadState, to: DownloadState) throws(KitError) {
        try Self.check(download: download)
        lock.lock()
        defer { lock.unlock() }
        if let last = states[download], last != from {
            throw .invalid("stateChanged of \(download) from \(from.rawValue), but its last reported state is \(last.rawValue)")
        }
        try send("stateChanged", ["download": download, "from": from.rawValue, "to": to.rawValue])
        states[download] = to
    }

    /// `progress`: `fraction` of `selection` (`video`, `audio_fr`, `subs_de`…) stored, 0…1.
    public func progress(_ download: String, selection: String, fraction: Double) throws(KitError) {
        try Self.check(download: download)
        guard !selection.isEmpty else { throw .invalid("progress of \(download) names no selection") }
        guard fraction.isFinite, (0...1).contains(fraction) else {
            throw .invalid("progress of \(download): fraction \(fraction) is not within 0…1")
        }
        try emit("progress", ["download": download, "selection": selection, "fraction": fraction])
    }

    /// `segmentStored`: segment `index` (its position in its media playlist, from 0) of
    /// `stream`, `bytes` long, known to the origin as `path`.
    public func segmentStored(_ download: String, stream: String, index: Int, bytes: Int, path: String) throws(KitError) {
        try Self.check(download: download)
        guard index >= 0, bytes >= 0 else {
            throw .invalid("segmentStored of \(download): index \(index) and bytes \(bytes) must not be negative")
        }
        try Self.check(originPath: path, of: "segmentStored")
        try emit("segmentStored", ["download": download, "stream": stream, "index": index, "bytes": bytes, "path": path])
    }

    /// `licenseAcquired`.
    public func licenseAcquired(_ download: String, expiration: Date) throws(KitError) {
        try Self.check(download: download)
        try emit("licenseAcquired", ["download": download, "expiration": rfc3339(expiration)])
    }

    /// `licenseRenewed`.
    public func licenseRenewed(_ download: String, expiration: Date) throws(KitError) {
        try Self.check(download: download)
        try emit("licenseRenewed", ["download": download, "expiration": rfc3339(expiration)])
    }

    /// `licenseFailed`, with the reason in words.
    public func licenseFailed(_ download: String, reason: String) throws(KitError) {
        try Self.check(download: download)
        try emit("licenseFailed", ["download": download, "reason": reason])
    }

    /// `finished`: the download's package, by the absolute path of its master playlist.
    public func finished(_ download: String, package: String) throws(KitError) {
        try Self.check(download: download)
        guard package.hasPrefix("/") else { throw .invalid("finished of \(download): package \(package) is not an absolute path") }
        try emit("finished", ["download": download, "package": package])
    }

    /// `evicted`: the app removed a stored download on its own (an expired rental).
    public func evicted(_ download: String) throws(KitError) {
        try Self.check(download: download)
        try emit("evicted", ["download": download])
    }

    /// `error`: something went wrong, in words; of one download or of the app.
    public func error(_ message: String, download: String? = nil) throws(KitError) {
        guard !message.isEmpty else { throw .invalid("an error event needs a message") }
        var fields: [String: Any] = ["message": message]
        if let download {
            try Self.check(download: download)
            fields["download"] = download
        }
        try emit("error", fields)
    }

    /// `partialSegmentsFound`: segments stored in part, found at the launch (a claim the
    /// harness checks against its own reading of the storage).
    public func partialSegmentsFound(_ segments: [PartialSegment]) throws(KitError) {
        var lines: [[String: Any]] = []
        for segment in segments {
            try Self.check(download: segment.download)
            guard segment.index >= 0, segment.bytes >= 0 else {
                throw .invalid("partialSegmentsFound: index \(segment.index) and bytes \(segment.bytes) must not be negative")
            }
            try Self.check(originPath: segment.path, of: "partialSegmentsFound")
            var line: [String: Any] = [
                "download": segment.download, "stream": segment.stream, "index": segment.index, "path": segment.path,
                "bytes": segment.bytes,
            ]
            if let range = segment.byteRange { line["byteRange"] = range }
            lines.append(line)
        }
        try emit("partialSegmentsFound", ["segments": lines])
    }

    /// `launched`: written by the kit after the hello reply.
    func launched(after: RelaunchKind) throws(KitError) {
        try emit("launched", ["pid": Int(getpid()), "after": after.rawValue])
    }

    /// Writes one event under the lock.
    private func emit(_ name: String, _ fields: [String: Any]) throws(KitError) {
        lock.lock()
        defer { lock.unlock() }
        try send(name, fields)
    }

    /// Stamps and writes one event (the caller holds the lock, so `t` runs in order).
    private func send(_ name: String, _ fields: [String: Any]) throws(KitError) {
        var line = fields
        line["type"] = "event"
        line["name"] = name
        line["t"] = monotonicNanoseconds()
        try writer.write(line)
    }

    static func check(download: String) throws(KitError) {
        guard !download.isEmpty else { throw .invalid("a download id must not be empty") }
    }

    static func check(originPath path: String, of event: String) throws(KitError) {
        guard path.hasPrefix("/") else {
            throw .invalid("\(event): \(path) is not an origin path (the URL's path, from /)")
        }
    }
}
