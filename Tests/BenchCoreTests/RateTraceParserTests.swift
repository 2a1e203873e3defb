import Foundation
import TestSupport
import Testing
@testable import BenchCore

/// Loading each trace format into `RateTrace`: hand-computed means, outages,
/// detection, real files against the dataset README, and every error naming file and line.
struct RateTraceParserTests {
    static let ms: UInt64 = 1_000_000
    static let s: UInt64 = 1_000_000_000

    static func fixture(_ path: String) throws -> String {
        let base = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return base.appendingPathComponent("traces").appendingPathComponent(path).path
    }

    static func parseError(
        _ text: String, format: RateTraceFormat? = nil, unit: RateTraceUnit = .kbitPerSecond,
        direction: Direction = .downlink
    ) -> RateTraceError? {
        do {
            _ = try RateTrace.parse(text, name: "bad.trace", format: format, unit: unit, direction: direction)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Formats, from committed fixtures

    @Test func mahimahiSnippet() throws {
        // 0,0,1,3,3,3,5: period 5 ms; the packet stamped 5 folds into slot 0 (2 + 1 packets).
        let trace = try RateTrace.load(contentsOf: Self.fixture("snippet.down"))
        #expect(trace.name == "snippet.down")
        #expect(trace.periodNanoseconds == 5 * Self.ms)
        #expect(trace.segments.map(\.bitsPerSecond) == [36e6, 12e6, 0, 36e6, 0])
        #expect(trace.segments.allSatisfy { $0.durationNanoseconds == Self.ms })
        #expect(abs(trace.meanBitsPerSecond - 7 * 12_000 / 0.005) < 1e-6)  // 16.8 Mbit/s
    }

    @Test(.cpuHeavy) func mahimahiMergesRepeatedRates() throws {
        // 100 s with one packet every ms: 100 000 slots of 12 Mbit/s collapse into one segment.
        let steady = (1...100_000).map(String.init).joined(separator: "\n")
        let trace = try RateTrace.parse(steady, name: "steady", format: .mahimahi)
        #expect(trace.segments == [RateTrace.Segment(durationNanoseconds: 100 * Self.s, bitsPerSecond: 12e6)])
        // 20 s of ~500 ms on (2 packets/ms), ~500 ms off; the 2 packets at T = 20 000 fold into
        // slot 0, which joins the first burst: two segments per second, still exact.
        var stamps: [String] = []
        for second in 0..<20 {
            for ms in 1...500 { stamps += ["\(second * 1000 + ms)", "\(second * 1000 + ms)"] }
        }
        stamps += ["20000", "20000"]
        let bursty = try RateTrace.parse(stamps.joined(separator: "\n"), name: "bursty")
        #expect(bursty.segments.count == 40)
        #expect(bursty.segments.first == RateTrace.Segment(durationNanoseconds: 501 * Self.ms, bitsPerSecond: 24e6))
        #expect(abs(bursty.meanBitsPerSecond - Double(stamps.count) * 12_000 / 20) < 1e-6)
    }

    @Test func norwayOutageIsOneLongSlowSegment() throws {
        let trace = try RateTrace.load(contentsOf: Self.fixture("norway-outage.log"))
        // bytes × 8 / ms kbit/s for each line: 1000, 2000, 1500, 0.1, 2000, 500.
        #expect(trace.segments.map(\.bitsPerSecond) == [1e6, 2e6, 1.5e6, 100, 2e6, 0.5e6])
        #expect(trace.segments.map(\.durationNanoseconds) == [1, 1, 1, 120, 2, 1].map { $0 * Self.s })
        #expect(trace.bitsPerSecond(at: 3 * Self.s) == 100)
        #expect(trace.bitsPerSecond(at: 122 * Self.s + 999 * Self.ms) == 100)
        #expect(trace.bitsPerSecond(at: 123 * Self.s) == 2e6)
        #expect(abs(trace.meanBitsPerSecond - 9_012_000.0 / 126) < 1e-6)
    }

    @Test func gNetTrackAveragesSecondsAndHoldsGaps() throws {
        let path = try Self.fixture("gnettrack.csv")
        let down = try RateTrace.load(contentsOf: path)
        // :30 two rows (1000, 3000) → 2000; :31 5000 held over the missing :32; :33 0; :34 4000.
        #expect(down.segments.map(\.bitsPerSecond) == [2e6, 5e6, 0, 4e6])
        #expect(down.segments.map(\.durationNanoseconds) == [1, 2, 1, 1].map { $0 * Self.s })
        #expect(abs(down.meanBitsPerSecond - 3_200_000) < 1e-6)
        let up = try RateTrace.load(contentsOf: path, direction: .uplink)
        #expect(abs(up.meanBitsPerSecond - 32_000) < 1e-6)
    }

    @Test func csvWithHeaderAndComments() throws {
        let trace = try RateTrace.load(contentsOf: Self.fixture("plain.csv"))
        // Gaps 2, 1, 2 s: the last sample holds for the median, 2 s.
        #expect(trace.segments.map(\.bitsPerSecond) == [1e6, 0.5e6, 0, 2e6])
        #expect(trace.segments.map(\.durationNanoseconds) == [2, 1, 2, 2].map { $0 * Self.s })
        #expect(abs(trace.meanBitsPerSecond - 6_500_000.0 / 7) < 1e-6)
    }

    @Test func csvUnitsAndSeparators() throws {
        let bytes = try RateTrace.parse("1,125000\n2,250000\n3,0\n", name: "pair", unit: .bytesPerSecond)
        #expect(bytes.segments.map(\.bitsPerSecond) == [1e6, 2e6, 0])
        #expect(abs(bytes.meanBitsPerSecond - 1e6) < 1e-6)
        let mbit = try RateTrace.parse("0.0\t1.5\n5.0\t0.5\n", name: "fcc", unit: .mbitPerSecond)
        #expect(mbit.segments.map(\.durationNanoseconds) == [5 * Self.s, 5 * Self.s])
        let spaced = try RateTrace.parse("0   100\n0.5, 200\n", name: "spaces")
        #expect(spaced.segments.map(\.bitsPerSecond) == [100_000, 200_000])
        let single = try RateTrace.parse("7,64", name: "one", format: .csv)
        #expect(single.segments == [RateTrace.Segment(durationNanoseconds: Self.s, bitsPerSecond: 64_000)])
    }

    // MARK: - Real files, against the README table

    @Test func realMahimahiMatchesReadme() throws {
        let trace = try RateTrace.load(contentsOf: Self.fixture("mahimahi-cellular/ATT-LTE-driving-2016.down"))
        #expect(trace.periodNanoseconds == 120_002 * Self.ms)
        #expect(abs(trace.meanBitsPerSecond / 4_560_000 - 1) < 0.01)
        #expect(trace.segments.count < 120_002)  // equal neighbouring slots merged
    }

    @Test func realFCCMatchesReadme() throws {
        let trace = try RateTrace.load(
            contentsOf: Self.fixture("fcc-broadband/trace_9370_http---www.youtube.com"), unit: .mbitPerSecond)
        #expect(trace.periodNanoseconds == 1800 * Self.s)
        #expect(abs(trace.meanBitsPerSecond / 271_000 - 1) < 0.01)
    }

    // MARK: - Detection

    @Test(arguments: [
        ("snippet.down", RateTraceFormat.mahimahi), ("norway-outage.log", .norwayHSDPA),
        ("gnettrack.csv", .gNetTrack), ("plain.csv", .csv),
        ("fcc-broadband/trace_9370_http---www.youtube.com", .csv),
    ])
    func detectsFixtures(file: String, format: RateTraceFormat) throws {
        let text = try String(contentsOfFile: Self.fixture(file), encoding: .utf8)
        #expect(try RateTraceFormat.detect(in: text, name: file) == format)
    }

    @Test func undetectableNamesTheFormatsTried() throws {
        let error = try #require(Self.parseError("hello world\nthis is not a trace\n"))
        #expect(error.file == "bad.trace")
        #expect(error.line == nil)
        for word in ["g-nettrack", "mahimahi", "norway-hsdpa", "csv", "format:"] {
            #expect(error.reason.contains(word), "reason should mention \(word): \(error.reason)")
        }
    }

    // MARK: - Errors name file and line

    @Test(arguments: [
        // (text, format, expected line, a word the reason must contain)
        ("0\n5\n3\n", RateTraceFormat?.some(.mahimahi), Int?.some(3), "decrease"),
        ("0\n0\n\n", .mahimahi, 2, "period"),
        ("1\n2\nx\n", .mahimahi, 3, "integer"),
        ("1\n-4\n", .mahimahi, 2, "integer"),
        ("1 2 3 4 5 1000\n1 2 3 4 5\n", .norwayHSDPA, 2, "6"),
        ("1 2 3 4 5 1000\n1 2 3 4 5 0\n", .norwayHSDPA, 2, "positive"),
        ("1 2 3 4 5 -1000\n", .norwayHSDPA, 1, "positive"),
        ("1 2 3 4 5 1000\n1 two 3 4 5 1000\n", .norwayHSDPA, 2, "column 2"),
        ("1 2 3 4 -5 1000\n", .norwayHSDPA, 1, "negative"),
        ("1 2 3 4 nan 1000\n", .norwayHSDPA, 1, "column 5"),
        ("0,100\n1,-5\n", .csv, 2, "negative"),
        ("0,100\n1,nan\n", .csv, 2, "not a number"),
        ("0,100\n1,200\n1,300\n", .csv, 3, "increase"),
        ("0,100\n1,200,3\n", .csv, 2, "2 columns"),
        ("t,r\n0,100\nx,5\n", .csv, 3, "time"),
        ("0,1e300\n", .csv, 1, "Pbit/s"),
        ("Timestamp,UL_bitrate\n2020.01.01_00.00.00,5\n", .gNetTrack, 1, "DL_bitrate"),
        ("Timestamp,DL_bitrate\n2020.01.01_00.00.00,-\n", .gNetTrack, 2, "DL_bitrate"),
        ("Timestamp,DL_bitrate\n2020.01.01_00.00.00,5\n2020.13.01_00.00.00,5\n", .gNetTrack, 3, "Timestamp"),
        ("Timestamp,DL_bitrate\n2020.01.01_00.00.05,5\n2020.01.01_00.00.04,5\n", .gNetTrack, 3, "earlier"),
        ("Timestamp,DL_bitrate,x\n2020.01.01_00.00.05\n", .gNetTrack, 2, "fields"),
    ])
    func lineErrors(text: String, format: RateTraceFormat?, line: Int?, word: String) throws {
        let error = try #require(Self.parseError(text, format: format))
        #expect(error.file == "bad.trace")
        #expect(error.line == line, "\(error)")
        #expect(error.reason.contains(word), "\(error)")
        // Detection reaches the same verdict (or a detection error) without crashing.
        _ = Self.parseError(text)
    }

    @Test func missingUplinkColumnIsNamed() throws {
        let text = "Timestamp,DL_bitrate\n2020.01.01_00.00.00,5\n"
        let error = try #require(Self.parseError(text, direction: .uplink))
        #expect(error.line == 1 && error.reason.contains("UL_bitrate"))
    }

    @Test(arguments: [
        ("", RateTraceFormat?.none), ("  \n\n\t\n", .none), ("\n", .some(.csv)),
        ("0,0\n1,0\n2,0\n", .none), ("1 2 3 4 0 1000\n", .none), ("# only a comment\n", .some(.csv)),
        ("Timestamp,DL_bitrate\n", .none),
    ])
    func wholeFileErrorsHaveNoLine(text: String, format: RateTraceFormat?) throws {
        let error = try #require(Self.parseError(text, format: format))
        #expect(error.file == "bad.trace")
        #expect(error.line == nil, "\(error)")
    }

    @Test func loadErrorsNameThePath() throws {
        let missing = "/nonexistent/deadzone/trace.log"
        let error = #expect(throws: RateTraceError.self) { try RateTrace.load(contentsOf: missing) }
        #expect(error?.file == missing && error?.line == nil)
        let binary = FileManager.default.temporaryDirectory.appendingPathComponent("deadzone-\(UUID()).bin")
        try Data([0xFF, 0xFE, 0x00, 0x80]).write(to: binary)
        defer { try? FileManager.default.removeItem(at: binary) }
        do {
            _ = try RateTrace.load(contentsOf: binary.path)
            Issue.record("a non-UTF-8 file must not load")
        } catch {
            #expect(error.file == binary.path && error.reason.contains("UTF-8"))
        }
    }

    @Test func crlfLineEndingsAndByteOrderMark() throws {
        let trace = try RateTrace.parse("\u{FEFF}0,100\r\n1,200\r\n", name: "crlf")
        #expect(trace.segments.map(\.bitsPerSecond) == [100_000, 200_000])
        let error = try #require(Self.parseError("0,100\r\n1,-2\r\n"))
        #expect(error.line == 2)
    }

    // MARK: - Never crash

    static let tokens = ["-", "0", "7", "nan", "inf", "1e308", "99999999999999999999999", "-1", "0x10",
                         "1e-320", "\n", "\r\n", ",", " ", "\t", "#", "_", ".", "é", "\u{FEFF}", "DL_bitrate"]

    /// Parses `text` every way; a success must be a usable trace, a failure a well-formed error.
    static func exercise(_ text: String, random: inout SeededGenerator) {
        let lineCount = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).count
        for format in [nil] + RateTraceFormat.allCases.map(Optional.some) {
            do {
                let trace = try RateTrace.parse(text, name: "fuzz", format: format, unit: .mbitPerSecond)
                #expect(trace.periodNanoseconds > 0 && trace.bytesPerPeriod > 0)
                #expect(trace.meanBitsPerSecond.isFinite && trace.meanBitsPerSecond > 0)
                let start = UInt64.random(in: 0...(2 * trace.periodNanoseconds), using: &random)
                if let finish = trace.finishTime(start: start, bytes: Double(random.next() % 10_000_000)) {
                    #expect(finish >= start && trace.deliverableBytes(from: start, to: finish) >= 0)
                }
                _ = trace.bitsPerSecond(at: random.next())
            } catch {
                #expect(error.file == "fuzz")
                #expect(error.line.map { (1...lineCount).contains($0) } ?? true, "\(error)")
            }
        }
    }

    @Test(arguments: [7, 1234, 99_999] as [UInt64])
    func randomGarbageNeverCrashes(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let pieces = "0123456789 ,\t\n-.e+#_:abcxyzTDL".map(String.init) + Self.tokens
        for _ in 0..<150 {
            let length = Int.random(in: 0...120, using: &random)
            let text = (0..<length).map { _ in pieces.randomElement(using: &random) ?? "0" }.joined()
            Self.exercise(text, random: &random)
        }
    }

    @Test(arguments: [11, 22, 33] as [UInt64])
    func mutatedValidTracesNeverCrash(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let originals = try ["snippet.down", "norway-outage.log", "gnettrack.csv", "plain.csv"].map {
            try String(contentsOfFile: Self.fixture($0), encoding: .utf8)
        }
        for original in originals {
            for _ in 0..<60 {
                var lines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let at = Int.random(in: 0..<lines.count, using: &random)
                    var line = Array(lines[at])
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0:  // insert a token
                        let token = Self.tokens.randomElement(using: &random) ?? "-"
                        line.insert(contentsOf: token, at: Int.random(in: 0...line.count, using: &random))
                    case 1:  // delete a stretch
                        guard !line.isEmpty else { break }
                        let from = Int.random(in: 0..<line.count, using: &random)
                        line.removeSubrange(from..<min(line.count, from + Int.random(in: 1...6, using: &random)))
                    case 2: lines.append(lines[at])  // a duplicate line at the end
                    case 3: lines.swapAt(at, Int.random(in: 0..<lines.count, using: &random))
                    default: line = Array(Self.tokens.randomElement(using: &random) ?? "")  // replace the line
                    }
                    if at < lines.count { lines[at] = String(line) }
                }
                Self.exercise(lines.joined(separator: "\n"), random: &random)
            }
        }
    }
}
