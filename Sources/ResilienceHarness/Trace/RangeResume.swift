/// An origin path the harness found partly on the app's disk at a kill, and the first
/// request for it after the relaunch. Shared by `crash-recovery` and its tests.
///
/// Every origin path of a scenario is one whole resource (the fixture origin serves no
/// EXT-X-BYTERANGE playlists: see `DiskWitness`), so resuming it means asking from the
/// byte the disk holds up to: `Range: bytes=<bytesOnDisk>-`.
public struct RangeResume: Sendable, Hashable {
    /// The origin path.
    public var path: String
    /// The bytes of it the disk held at the kill.
    public var bytesOnDisk: Int64
    /// The first request for it after the kill (and before the next one); nil when
    /// there was none (the download was not resumed in that window).
    public var request: TracedOriginRequest?

    /// `bytes=<bytesOnDisk>-`.
    public var expectedRange: String { "bytes=\(bytesOnDisk)-" }

    /// The first byte `request` asked for: 0 without a `Range`; nil without a request,
    /// or for a `Range` that is not one `bytes=a-[b]`.
    public var askedFrom: Int64? {
        guard let request else { return nil }
        guard let header = request.record.range else { return 0 }
        return HTTPByteRange(header)?.first
    }

    /// Whether the request asked from exactly the first byte the disk did not hold.
    public var resumed: Bool { askedFrom == bytesOnDisk }

    /// The bytes on disk the request fetched again: `bytesOnDisk − askedFrom` when it
    /// asked from fewer, else 0.
    public var refetchedBytes: Int64 {
        guard let from = askedFrom, from < bytesOnDisk else { return 0 }
        return bytesOnDisk - from
    }
}

extension ScenarioTrace {
    /// The paths partly on disk at `restarts[index]`'s kill (bytes > 0), each with the
    /// first request for it the app made after the kill (`requests(afterRestart:)`),
    /// in path order. Nil for a bad index or a kill without a disk snapshot.
    public func rangeResumes(restart index: Int) -> [RangeResume]? {
        guard let snapshot = diskSnapshot(restart: index) else { return nil }
        let after = requests(afterRestart: index)
        return snapshot.partial.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { path, bytes in
            RangeResume(path: path, bytesOnDisk: bytes, request: after.first { $0.path == path })
        }
    }
}

/// A single `bytes=first-[last]` range of an HTTP `Range` header.
struct HTTPByteRange: Hashable {
    var first: Int64
    /// The last byte (inclusive); nil for "to the end".
    var last: Int64?

    init(first: Int64, last: Int64?) {
        self.first = first
        self.last = last
    }

    /// Parses `bytes=a-` or `bytes=a-b` (spaces and case tolerated); nil for anything
    /// else (several ranges, a suffix range `bytes=-n`, garbage).
    init?(_ header: String) {
        let text = header.lowercased().filter { !$0.isWhitespace }
        guard text.hasPrefix("bytes=") else { return nil }
        let parts = text.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0]) else { return nil }
        if parts[1].isEmpty {
            self.init(first: first, last: nil)
        } else {
            guard let last = Int64(parts[1]), last >= first else { return nil }
            self.init(first: first, last: last)
        }
    }

    /// `bytes=a-` or `bytes=a-b`.
    var header: String { "bytes=\(first)-" + (last.map(String.init) ?? "") }
}
