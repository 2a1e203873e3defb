import AppProtocol
import BenchCore
import ResilienceHarness
import Testing

/// `crash-recovery` on a recorded stream's shapes (`bench --catalog`): a single-file
/// stream's byte ranges (EXT-X-BYTERANGE) held in part at a kill and resumed inside their
/// range, init sections (EXT-X-MAP, whole or a range of the file) and segments at recorded
/// paths held whole; judged as the fixture's whole files are.
@Suite struct PropertyCrashRecoveryRecordedTests {
    let id = "crash-recovery"
    static let file = "/pilot/v0/all.ts"
    /// The single-file stream's three ranges: 1000 bytes at 0, 1500 at 1000, 1200 at 2500.
    static let ranges: [ClosedRange<Int64>] = [0...999, 1000...2499, 2500...3699]
    static func key(_ index: Int) -> String { MediaResourceKey(path: file, range: ranges[index]).description }
    static func header(_ range: ClosedRange<Int64>) -> String { "bytes=\(range.lowerBound)-\(range.upperBound)" }

    /// The origin's playlists as the runner gives them: the single-file rendition, and an
    /// fMP4 one whose init section is a range of its one file.
    static let context = PropertyContext(renditions: OriginRenditions(
        resources: [
            "/pilot/v0/index.m3u8": ranges.map { MediaResourceKey(path: file, range: $0) },
            "/pilot/v2/index.m3u8": [MediaResourceKey(path: "/pilot/v2/all.mp4", range: 300...1099)],
        ],
        initSections: [MediaResourceKey(path: "/pilot/v2/all.mp4", range: 0...299)]))

    /// d1 fetches range 0 whole and range 1 is being sent when the agent is SIGKILLed at
    /// 10 s; the harness finds range 0 whole and 600 bytes of range 1; relaunched after a
    /// crash at 11 s, the app says it found those 600 bytes.
    static func killedInRange1() -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "pilot", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin(file, bytes: 1000, range: header(ranges[0]), at: 3, duration: 1, status: 206)
        b.stored("d1", path: file, bytes: 1000, index: 0, at: 3.1)
        b.kill(at: 10)
        b.origin(file, bytes: 700, range: header(ranges[1]), at: 10.05, duration: 5, status: 206)
        b.disk(at: 10.2, stored: [key(0)], partial: [key(1): 600], unknown: ["index.sqlite": 8192])
        b.launch(after: .crash, at: 11)
        b.partials([AppPartialSegment(
            download: "d1", stream: "video", index: 1, path: file, bytes: 600, byteRange: header(ranges[1]))], at: 11)
        return b
    }

    /// After the launch: range 1 asked with `range` (its rest: bytes=1600-2499), range 2
    /// whole, and d1 completes.
    static func resumed(_ b: inout TraceBuilder, with range: String? = "bytes=1600-2499", bytes: Int = 900) {
        b.origin(file, bytes: bytes, range: range, at: 13, duration: 1, status: range == nil ? 200 : 206)
        b.stored("d1", path: file, bytes: 1500, index: 1, at: 13.1)
        b.origin(file, bytes: 1200, range: header(ranges[2]), at: 15, duration: 1, status: 206)
        b.stored("d1", path: file, bytes: 1200, index: 2, at: 15.1)
        b.state("d1", .downloaded, at: 16)
    }

    /// How the disk read names a range: `path#bytes=first-last`, the path normalized; a
    /// fragment that is no such range names the whole file.
    @Test func aRangeIsNamedByItsPathAndBytes() {
        let key = MediaResourceKey("https://cdn.example/pilot/all.ts?token=1#bytes=1000-2499")
        #expect(key == MediaResourceKey(path: "/pilot/all.ts", range: 1000...2499) && key.offset == 1000)
        #expect(key.description == "/pilot/all.ts#bytes=1000-2499")
        #expect(MediaResourceKey("/pilot/all.ts#bytes=2499-1000") == MediaResourceKey(path: "/pilot/all.ts"))
        #expect(MediaResourceKey("/pilot/all.ts#t=3").range == nil)
    }

    @Test func aByteRangeResumedFromItsOffsetPlusWhatTheDiskHeldPasses() {
        var b = Self.killedInRange1()
        Self.resumed(&b)
        let verdict = evaluate(id, b, Self.context)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        #expect(verdict.summary.contains("1 path stored whole on disk at the kills, 0 bytes of them fetched again, "
            + "1 partial copy resumed by Range"), "\(verdict.summary)")
        expectEvidence(verdict, at: 12, contains: "origin GET /pilot/v0/all.ts with Range bytes=1600-2499 resumed: the "
            + "disk held 600 bytes of /pilot/v0/all.ts#bytes=1000-2499 at the kill at 10.000 s")
        expectEvidence(verdict, at: 10, contains: "the kill at 10.000 s counts: the origin was sending GET /pilot/v0/all.ts")
        // Without the playlists' layout (a context made without an origin) the judge
        // still finds the resume, and raises nothing.
        #expect(evaluate(id, b).outcome == .passed, "\(evaluate(id, b).evidence)")
    }

    /// From the file's start, from the range's start, with no Range at all, or from the
    /// bytes held counted from the file's start (`byte-range-from-zero`): each fetches
    /// what the disk held again, or another part of the file, and breaks `recover`.
    @Test(arguments: [
        ("bytes=0-2499", 2500, "it asked from the file's start, outside its range (1000 to 2499), and fetched 600 "
            + "bytes the disk held again"),
        ("bytes=1000-2499", 1500, "600 bytes were fetched again (from the start of its range)"),
        (nil, 3700, "it asked from the file's start, outside its range (1000 to 2499), and fetched 600 bytes the disk "
            + "held again"),
        ("bytes=600-1499", 900, "it asked from byte 600 of the file (the 600 bytes held counted from the file's start, "
            + "not from its range's first byte), outside its range (1000 to 2499), and fetched 500 bytes the disk held again"),
        ("bytes=1800-2499", 700, "bytes 1600 to 1799 are missing"),
    ] as [(String?, Int, String)])
    func aByteRangeResumedFromElsewhereFails(_ range: String?, _ bytes: Int, _ effect: String) {
        var b = Self.killedInRange1()
        Self.resumed(&b, with: range, bytes: bytes)
        let verdict = evaluate(id, b, Self.context)
        #expect(verdict.outcome == .failed)
        let asked = range.map { "Range \($0)" } ?? "no Range (from byte 0)"
        let text = "origin GET /pilot/v0/all.ts asked \(asked) after the kill, but the disk held 600 bytes of "
            + "/pilot/v0/all.ts#bytes=1000-2499 at the kill at 10.000 s: \(effect); it must resume with Range bytes=1600-2499"
        expectEvidence(verdict, at: 12, contains: text)
        #expect(verdict.evidence.first { $0.text.contains(text) }?.obligation == "recover", "\(verdict.evidence)")
    }

    /// The same wrong resume from the file's start, with a range the disk held whole in
    /// its way: those bytes were fetched again too.
    @Test func aResumeThatAsksARangeHeldWholeAgainIsARefetch() {
        var b = Self.killedInRange1()
        Self.resumed(&b, with: "bytes=600-1499", bytes: 900)
        let verdict = evaluate(id, b, Self.context)
        expectEvidence(verdict, at: 12, contains: "origin GET /pilot/v0/all.ts (Range bytes=600-1499) sent 900 bytes "
            + "again after the kill at 10.000 s; the app's disk held the whole of /pilot/v0/all.ts#bytes=0-999 at the kill")
    }

    /// Range 1's response reached the app's socket whole on a connection still open at the
    /// kill, but the disk held only 600 bytes of the range (or none of it): the rest was on
    /// its way, and the kill counts.
    @Test(arguments: [Int64(600), 0])
    func aKillCountsWhenTheDiskHeldLessOfARangeThanItsConnectionCarried(_ held: Int64) {
        let peer = "127.0.0.1:50000"
        var b = TraceBuilder()
        b.request("d1", video: "pilot", at: 0)
        b.state("d1", .downloading, at: 0.2)
        b.connectionAccepted(1, peer: peer, at: 0.5)
        b.origin(Self.file, bytes: 1000, range: Self.header(Self.ranges[0]), at: 3, duration: 1, status: 206, source: peer)
        b.origin(Self.file, bytes: 1500, range: Self.header(Self.ranges[1]), at: 9.5, duration: 1, status: 206, source: peer)
        b.connectionClosed(1, delivered: 2700, at: 10.01)
        b.kill(at: 10)
        b.disk(at: 10.2, stored: [Self.key(0)], partial: held > 0 ? [Self.key(1): held] : [:])
        b.launch(after: .crash, at: 11)
        Self.resumed(&b, with: held > 0 ? "bytes=1600-2499" : "bytes=1000-2499", bytes: held > 0 ? 900 : 1500)
        let verdict = evaluate(id, b, PropertyContext(minimumCrashRestarts: 1, renditions: Self.context.renditions))
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        let disk = held > 0 ? "them only up to 1600 at the kill: 900" : "none of them at the kill: 1500"
        expectEvidence(verdict, at: 10, contains: "the kill at 10.000 s counts: GET /pilot/v0/all.ts with Range "
            + "bytes=1000-2499 (from 8.500 s, on the app's connection 1, open at the kill) had carried the file's bytes "
            + "up to 2500, but the disk held \(disk) bytes were on their way")
    }

    /// Asking range 0 again, which the disk held whole, is a refetch; asking the next
    /// range, which it did not hold, is not.
    @Test func aRangeHeldWholeAskedAgainFails() {
        var b = Self.killedInRange1()
        b.origin(Self.file, bytes: 1000, range: Self.header(Self.ranges[0]), at: 12.5, duration: 0.5, status: 206)
        Self.resumed(&b)
        let verdict = evaluate(id, b, Self.context)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 12, contains: "origin GET /pilot/v0/all.ts (Range bytes=0-999) sent 1000 bytes again "
            + "after the kill at 10.000 s; the app's disk held the whole of /pilot/v0/all.ts#bytes=0-999 at the kill")
        #expect(verdict.evidence.filter { $0.obligation != nil }.count == 1, "\(verdict.evidence)")
    }

    /// The app's claims are checked against the ranges its indexes name: range 2 claimed
    /// stored before the kill, but the disk held none of it.
    @Test func aStoredClaimOfARangeTheDiskDoesNotHoldFails() {
        var b = Self.killedInRange1()
        b.stored("d1", path: Self.file, bytes: 1200, index: 2, at: 5)
        Self.resumed(&b)
        let verdict = evaluate(id, b, Self.context)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 10, contains: "download d1 reported /pilot/v0/all.ts (segment 2, its range "
            + "bytes=2500-3699) stored at 5.000 s, but the app's disk held no copy of it at the kill at 10.000 s")
        var partial = Self.killedInRange1()
        partial.partials([AppPartialSegment(download: "d1", stream: "video", index: 1, path: Self.file, bytes: 500)], at: 11.1)
        Self.resumed(&partial)
        expectEvidence(evaluate(id, partial, Self.context), at: 11.1, contains: "download d1 reported 500 bytes of "
            + "/pilot/v0/all.ts (its range bytes=1000-2499) partly stored at its launch, but the app's disk held 600 "
            + "bytes of it")
    }

    /// An fMP4 stream at recorded paths: the init section and seg0 held whole, seg1 in
    /// part. Asking the init section again is a refetch; not asking it passes.
    @Test(arguments: [false, true])
    func anInitSectionHeldWholeIsNotFetchedAgain(_ refetched: Bool) {
        let init0 = "/fmp4/v0/init.mp4", seg0 = "/fmp4/v0/seg0.m4s", seg1 = "/fmp4/v0/seg1.m4s"
        var b = TraceBuilder()
        b.request("d1", video: "fmp4", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin(init0, bytes: 700, at: 2, duration: 0.5)
        b.origin(seg0, bytes: 90_000, at: 5, duration: 3)
        b.stored("d1", path: seg0, bytes: 90_000, index: 0, at: 5.1)
        b.kill(at: 10)
        b.origin(seg1, bytes: 40_000, at: 10.05, duration: 4)
        b.disk(at: 10.2, stored: [init0, seg0], partial: [seg1: 30_000])
        b.launch(after: .crash, at: 11)
        if refetched { b.origin(init0, bytes: 700, at: 12, duration: 0.5) }
        b.origin(seg1, bytes: 60_000, range: "bytes=30000-", at: 14, duration: 2, status: 206)
        b.stored("d1", path: seg1, bytes: 90_000, index: 1, at: 14.1)
        b.state("d1", .downloaded, at: 15)
        let verdict = evaluate(id, b, PropertyContext(minimumCrashRestarts: 1))
        #expect(verdict.outcome == (refetched ? .failed : .passed), "\(verdict.evidence)")
        if refetched {
            expectEvidence(verdict, at: 11.5, contains: "origin GET /fmp4/v0/init.mp4 sent 700 bytes again after the kill "
                + "at 10.000 s; the app's disk held the whole of it at the kill")
        } else {
            expectEvidence(verdict, at: 11, contains: "none of the 2 paths the app's disk held whole at the kill at "
                + "10.000 s was fetched again")
            expectEvidence(verdict, at: 12, contains: "origin GET /fmp4/v0/seg1.m4s with Range bytes=30000- resumed")
        }
    }

    /// A single-file fMP4 stream whose init section is a range of its one file: the range
    /// held whole is not asked again, a kill while the file's next range is under way
    /// counts (an `.mp4` is media), and the segment's range is resumed inside it.
    @Test func anInitSectionThatIsARangeOfTheFileIsJudgedAsARange() {
        let file = "/pilot/v2/all.mp4"
        var b = TraceBuilder()
        b.request("d1", video: "pilot", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin(file, bytes: 300, range: "bytes=0-299", at: 2, duration: 0.5, status: 206)
        b.kill(at: 10)
        b.origin(file, bytes: 500, range: "bytes=300-1099", at: 10.05, duration: 6, status: 206)
        b.disk(at: 10.2, stored: ["\(file)#bytes=0-299"], partial: ["\(file)#bytes=300-1099": 400])
        b.launch(after: .crash, at: 11)
        b.origin(file, bytes: 400, range: "bytes=700-1099", at: 13, duration: 1, status: 206)
        b.state("d1", .downloaded, at: 14)
        let verdict = evaluate(id, b, PropertyContext(minimumCrashRestarts: 1, renditions: Self.context.renditions))
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 10, contains: "the kill at 10.000 s counts: the origin was sending GET /pilot/v2/all.mp4")
        expectEvidence(verdict, at: 12, contains: "origin GET /pilot/v2/all.mp4 with Range bytes=700-1099 resumed: the disk "
            + "held 400 bytes of /pilot/v2/all.mp4#bytes=300-1099")
    }

    /// A recorded MPEG-TS stream's segment, at its recorded path (not a fixture
    /// `/videos/…` one), held whole: the app's claim agrees, and asking it again fails.
    @Test func aSegmentAtARecordedPathHeldWholeIsJudgedAsAFixtureOne() {
        let seg0 = "/ts/v0/seg0.ts", seg1 = "/ts/v0/seg1.ts"
        func trace(refetch: Bool) -> TraceBuilder {
            var b = TraceBuilder()
            b.request("d1", video: "ts", at: 0)
            b.state("d1", .downloading, at: 1)
            b.origin(seg0, bytes: 80_000, at: 3, duration: 2)
            b.stored("d1", path: seg0, bytes: 80_000, index: 0, at: 3.1)
            b.kill(at: 10)
            b.origin(seg1, bytes: 10_000, at: 10.05, duration: 5)
            b.disk(at: 10.2, stored: [seg0], partial: [seg1: 10_000])
            b.launch(after: .crash, at: 11)
            if refetch { b.origin(seg0, bytes: 80_000, at: 12, duration: 1) }
            b.origin(seg1, bytes: 70_000, range: "bytes=10000-", at: 14, duration: 1, status: 206)
            b.state("d1", .downloaded, at: 15)
            return b
        }
        let honest = evaluate(id, trace(refetch: false), PropertyContext(minimumCrashRestarts: 1))
        #expect(honest.outcome == .passed, "\(honest.evidence)")
        #expect(honest.summary.contains("1 path stored whole on disk at the kills, 0 bytes of them fetched again, "
            + "1 partial copy resumed by Range"), "\(honest.summary)")
        let refetching = evaluate(id, trace(refetch: true))
        #expect(refetching.outcome == .failed)
        expectEvidence(refetching, at: 11, contains: "origin GET /ts/v0/seg0.ts sent 80000 bytes again after the kill")
    }
}
