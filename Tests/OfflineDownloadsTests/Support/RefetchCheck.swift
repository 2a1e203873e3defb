import FixtureOrigin
import Foundation
import TestSupport
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
    /// Now, on the clock the origin stamps `OriginRequestRecord.startedAtNanoseconds`
    /// with: a mark for `requests(startedAfter:)`.
    var nowNanoseconds: UInt64 { configuration.clock.nowNanoseconds }

    /// The logged requests whose head arrived after `mark` (`nowNanoseconds` read
    /// earlier). Unlike a count of the log, a mark needs no wait for the log to settle:
    /// a request of an earlier client that is logged late (a request cut by a stopped
    /// client is logged whenever the origin notices) started before it.
    func requests(startedAfter mark: UInt64) -> [OriginRequestRecord] {
        requestLog.filter { $0.startedAtNanoseconds > mark }
    }

    /// The requests whose head arrived after `start` and before `end` (marks read
    /// earlier), logged or still under way: read once the window is over and a later
    /// exchange has landed, it misses none begun in the window (one that ends between
    /// the two reads below is listed twice).
    func requests(startedBetween start: UInt64, and end: UInt64) -> [OriginRequestRecord] {
        let running = responsesInProgress  // first: a response leaves this list only once logged
        return (requestLog + running).filter { $0.startedAtNanoseconds > start && $0.startedAtNanoseconds < end }
    }

    /// The request log once at least `count` of its records satisfy `isIncluded`,
    /// waiting up to `seconds` for them (a response is logged just after it leaves, so a
    /// client can hold it before its record exists); the log as it is if they never come.
    func requestLog(
        count: Int, seconds: Double = 60, where isIncluded: (OriginRequestRecord) -> Bool
    ) async throws -> [OriginRequestRecord] {
        await pollUntil(within: seconds) { requestLog.filter(isIncluded).count >= count }
        return requestLog
    }
}

/// The files under `directory` that this process holds open, from `/proc/self/fd`: a
/// transfer holds each `.part` file it writes open until its fetch has ended, so none
/// open under a package means nothing is writing into it. Only descriptors on the
/// test's own files are looked at.
func openFiles(under directory: String) -> [String] {
    let prefix = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path + "/"
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
        .filter { $0.hasPrefix(prefix) }
}

/// Waits up to `seconds` until this process holds no file under `directory` open;
/// whether it came to that.
func waitUntilClosed(under directory: String, seconds: Double = 60) async throws -> Bool {
    await pollUntil(within: seconds) { openFiles(under: directory).isEmpty }
}
