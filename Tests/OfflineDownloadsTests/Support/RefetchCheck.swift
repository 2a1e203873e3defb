import FixtureOrigin
import Foundation
import Testing

/// What a package held on disk when its process stopped, and the check that a later
/// run fetched none of the stored segments again and resumed each `.part` by Range.
///
/// "Stored" is judged from the disk, not from the origin's log: a response the origin
/// finished sending can still be lost in the socket buffers of a killed process, and
/// fetching that segment again is right.
struct StoppedPackage {
    /// Indexes of segments whose final file was in place.
    var stored: Set<Int> = []
    /// Sizes of `.part` files, by segment index.
    var parts: [Int: Int64] = [:]

    /// Reads `directory` (a package's `video` directory, files `seg%05d.ts[.part]`).
    init(videoDirectory directory: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            guard name.hasPrefix("seg"), let index = Int(name.dropFirst(3).prefix { $0.isNumber }) else { continue }
            if name.hasSuffix(".ts") { stored.insert(index) }
            if name.hasSuffix(".ts.part") {
                let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int64) ?? 0
                if size > 0 { parts[index] = size }
            }
        }
    }

    /// Expects that `later` (origin requests made after the stop, for paths
    /// `{prefix}{index}.ts`) asks for no stored segment, and that the first request for
    /// each `.part` starts at its size.
    func expectResumed(by later: [OriginRequestRecord], prefix: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var firstRange: [Int: String?] = [:]
        for request in later.sorted(by: { $0.startedAtNanoseconds < $1.startedAtNanoseconds }) {
            guard request.path.hasPrefix(prefix), request.path.hasSuffix(".ts"),
                let index = Int(request.path.dropFirst(prefix.count).dropLast(3))
            else { continue }
            #expect(!stored.contains(index), "segment \(index) was stored, and fetched again", sourceLocation: sourceLocation)
            if firstRange[index] == nil { firstRange[index] = .some(request.range) }
        }
        for (index, size) in parts {
            guard let range = firstRange[index] else { continue }
            #expect(range == "bytes=\(size)-", "segment \(index) had \(size) bytes in .part; resumed with \(range ?? "no Range")",
                    sourceLocation: sourceLocation)
        }
    }
}

extension OriginServer {
    /// The request log once it has stopped growing for `quiet` (requests cut by a
    /// stopped client are logged when the origin notices), at most `limit` later.
    func settledRequestLog(quiet: Duration = .milliseconds(300), limit: Duration = .seconds(5)) async throws -> [OriginRequestRecord] {
        let clock = ContinuousClock()
        let end = clock.now + limit
        var log = requestLog
        while clock.now < end {
            try await Task.sleep(for: quiet)
            let now = requestLog
            if now.count == log.count { return now }
            log = now
        }
        return log
    }
}
