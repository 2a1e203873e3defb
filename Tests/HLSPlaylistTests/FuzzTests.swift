import Foundation
import TestSupport
import Testing
@testable import HLSPlaylist

/// SplitMix64: a tiny seeded generator so every fuzz case is reproducible from its seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Parsing must never crash or hang: any input either parses or throws `PlaylistError`.
/// When it parses, rendering and parsing again must give back the same playlist, and the
/// rendered text must be a fixed point of the writer. A hang fails the time limit.
/// The time limit is for a hang, not for speed: `.cpuHeavy` runs each case at nice 10, and in
/// the first minutes of `swift test` on two cores, with hundreds of tests at nice 0, a case that
/// takes a second alone was starved past two minutes (the fresh clone of e2adee5).
@Suite(.timeLimit(.minutes(10)), .cpuHeavy)
struct FuzzTests {
    /// Parses `text`; on success checks the round trip, on failure that the error names a
    /// real line. Returns whether it parsed.
    @discardableResult
    static func check(_ text: String, _ context: @autoclosure () -> String) -> Bool {
        do throws(PlaylistError) {
            let playlist = try Playlist.parse(text)
            let rendered = playlist.render()
            do throws(PlaylistError) {
                let again = try Playlist.parse(rendered)
                #expect(again == playlist, "\(context()): round trip changed the playlist")
                #expect(again.render() == rendered, "\(context()): rendering is not a fixed point")
            } catch {
                Issue.record("\(context()): rendered playlist does not parse: \(error)\n\(rendered)")
            }
            return true
        } catch {
            checkLine(of: error, in: text, context())
            return false
        }
    }

    /// An error names a line of the input, 1 to its number of lines, or one past the end
    /// (a URI line missing after a tag on the last line); line 0 only for a problem of the
    /// whole input, which for these small inputs can only be a missing target duration.
    static func checkLine(of error: PlaylistError, in text: String, _ context: String) {
        let lineCount = text.utf8.count { $0 == UInt8(ascii: "\n") } + 1
        if error.line == 0 {
            #expect(error.message.contains("EXT-X-TARGETDURATION"), "\(context): line 0 for \(error.message)")
            #expect(error.description == error.message)
        } else {
            #expect((1...lineCount + 1).contains(error.line), "\(context): line \(error.line) of \(lineCount): \(error)")
            #expect(error.description.hasPrefix("line \(error.line): "))
        }
        #expect(!error.message.isEmpty, "\(context)")
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomBytes(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let alphabet = Array("#EXTM3U-:,=\"@x0123456789.\n\rABIFNSTY ".utf8)
        for index in 0..<500 {
            let count = Int.random(in: 0...300, using: &rng)
            var bytes: [UInt8] = []
            // Half the cases are raw bytes; half draw from playlist-like characters after a valid header.
            if index.isMultiple(of: 2) {
                bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else {
                bytes = Array("#EXTM3U\n".utf8) + (0..<count).map { _ in alphabet.randomElement(using: &rng)! }
            }
            Self.check(String(decoding: bytes, as: UTF8.self), "seed \(seed) case \(index)")
        }
    }

    @Test(arguments: Fixture.all)
    func mutationsOfValidPlaylists(name: String) throws {
        let original = try Fixture.text(name)
        let parsedOriginal = try Playlist.parse(original)
        var rng = SplitMix64(seed: UInt64(truncatingIfNeeded: name.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
        var parsedCount = 0
        let cases = 400
        for index in 0..<cases {
            var lines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                Self.mutate(&lines, using: &rng)
            }
            let text = lines.joined(separator: "\n")
            if Self.check(text, "\(name) mutation \(index)") {
                parsedCount += 1
            }
            if text == original {  // a mutation that changed nothing (a swap of a line with itself)
                #expect(try Playlist.parse(text) == parsedOriginal, "\(name) mutation \(index)")
            }
        }
        // The mutations explore both sides: many keep the playlist valid (duplicated or
        // dropped comments, swapped tags, a cut after a whole segment), many break it.
        #expect(parsedCount >= cases / 10, "\(name): only \(parsedCount) of \(cases) mutations parsed")
        #expect(parsedCount <= cases - cases / 10, "\(name): \(parsedCount) of \(cases) mutations parsed")
    }

    static func mutate(_ lines: inout [String], using rng: inout SplitMix64) {
        guard !lines.isEmpty else { lines = [""]; return }
        let i = Int.random(in: 0..<lines.count, using: &rng)
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: lines.remove(at: i)
        case 1: lines.insert(lines[i], at: i)
        case 2: lines.swapAt(i, Int.random(in: 0..<lines.count, using: &rng))
        case 3: lines = Array(lines.prefix(i))
        case 4:  // truncate inside a line
            lines[i] = String(lines[i].prefix(Int.random(in: 0...max(0, lines[i].count), using: &rng)))
        case 5:  // flip a character
            var chars = Array(lines[i].unicodeScalars)
            guard !chars.isEmpty else { return }
            let j = Int.random(in: 0..<chars.count, using: &rng)
            let replacements: [Unicode.Scalar] = ["\"", ",", "=", "@", ":", "#", "x", "-", ".", "9", "\u{0}", "é", "\r"]
            chars[j] = replacements.randomElement(using: &rng)!
            lines[i] = String(String.UnicodeScalarView(chars))
        default:  // splice a line from elsewhere into the middle of this one
            let other = lines[Int.random(in: 0..<lines.count, using: &rng)]
            let cut = lines[i].index(lines[i].startIndex, offsetBy: Int.random(in: 0...lines[i].count, using: &rng))
            lines[i].insert(contentsOf: other, at: cut)
        }
    }
}
