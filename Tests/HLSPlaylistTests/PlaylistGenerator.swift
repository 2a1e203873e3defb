@testable import HLSPlaylist

/// Builds random playlist values, seeded, within what the writer can represent (no `"`
/// or control characters in strings, no text that line trimming would change, one key
/// per KEYFORMAT, no map dropped once given), for the round-trip property.
struct PlaylistGenerator {
    var rng: SplitMix64

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func bool() -> Bool { Bool.random(using: &rng) }
    mutating func maybe<T>(_ make: (inout Self) -> T) -> T? { bool() ? make(&self) : nil }
    mutating func list<T>(_ range: ClosedRange<Int>, _ make: (inout Self) -> T) -> [T] {
        (0..<int(range)).map { _ in make(&self) }
    }

    /// Text for quoted strings: spaces, commas, `=`, `:` and non-ASCII included.
    mutating func text(_ count: ClosedRange<Int> = 0...12) -> String {
        let alphabet = Array("abcXYZ019 ,=:/-_.@é漢")
        return String((0..<int(count)).map { _ in alphabet[int(0...alphabet.count - 1)] })
    }

    /// Text that stays the same at the end of a line: no trailing space, not empty.
    mutating func lineText() -> String {
        var text = self.text(1...12)
        while text.last == " " { text.removeLast() }
        return text.isEmpty ? "x" : text
    }

    /// An enumerated string: letters, digits, `-`.
    mutating func token() -> String {
        let alphabet = Array("ABCTYPE019-")
        return String((0..<int(1...8)).map { _ in alphabet[int(0...alphabet.count - 1)] })
    }

    mutating func uri() -> String {
        var uri = lineText()
        if uri.first == "#" || uri.first == " " { uri = "u" + uri }
        return uri
    }

    mutating func decimal() -> Double { Double(int(0...10_000_000)) / Double([1, 10, 1000, 1_000_000][int(0...3)]) }
    mutating func signedDecimal() -> Double { bool() ? -decimal() : decimal() }
    mutating func unknownTag() -> String { "#EXT-X-GEN-\(int(0...99))" + (bool() ? ":" + lineText() : "") }

    mutating func dateRange() -> DateRange {
        var seen: Set<String> = []
        let client = list(0...3) { g -> DateRange.ClientAttribute in
            let quoted = g.bool()
            return DateRange.ClientAttribute(name: "X-\(g.token())", value: quoted ? g.text() : g.token(), isQuoted: quoted)
        }.filter { seen.insert($0.name).inserted }
        return DateRange(
            id: text(), classID: maybe { $0.text() }, startDate: text(), endDate: maybe { $0.text() },
            duration: maybe { $0.decimal() }, plannedDuration: maybe { $0.decimal() },
            scte35Command: maybe { "0x" + $0.token() }, scte35Out: maybe { $0.token() }, scte35In: maybe { $0.token() },
            endOnNext: bool(), clientAttributes: client)
    }

    mutating func key(format: String?) -> EncryptionKey {
        EncryptionKey(
            method: EncryptionKey.Method.allCases[int(0...2)], uri: text(), iv: maybe { g in (0..<16).map { _ in UInt8(g.int(0...255)) } },
            keyFormat: format, keyFormatVersions: maybe { $0.text() })
    }

    /// Keys of distinct KEYFORMATs in a random order.
    mutating func keys() -> [EncryptionKey] {
        var formats: [String?] = [bool() ? nil : "identity", "com.apple.streamingkeydelivery",
                                  "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed", "com.microsoft.playready"]
        formats.shuffle(using: &rng)
        return formats.prefix(int(0...3)).map { key(format: $0) }
    }

    mutating func media() -> MediaPlaylist {
        var keys: [EncryptionKey] = []
        var map: MediaInitializationSection?
        let segments = list(0...8) { g -> MediaSegment in
            if g.int(0...2) == 0 { keys = g.keys() }
            if g.int(0...3) == 0 {
                map = MediaInitializationSection(uri: g.text(), byteRange: g.maybe { ByteRange(length: $0.int(0...9999), offset: $0.int(0...9999)) })
            }
            let title = g.bool() ? "" : g.lineText()
            return MediaSegment(
                duration: g.decimal(), title: title, uri: g.uri(),
                byteRange: g.maybe { ByteRange(length: $0.int(0...99999), offset: $0.int(0...99999)) }, keys: keys, map: map,
                discontinuity: g.bool(), programDateTime: g.maybe { $0.lineText() }, dateRanges: g.list(0...2) { $0.dateRange() },
                unknownTags: g.list(0...2) { $0.unknownTag() })
        }
        return MediaPlaylist(
            version: maybe { $0.int(1...12) }, targetDuration: int(0...20), mediaSequence: int(0...100_000),
            discontinuitySequence: int(0...50), playlistType: maybe { $0.bool() ? .vod : .event },
            iFramesOnly: bool(), independentSegments: bool(),
            start: maybe { StartPoint(timeOffset: $0.signedDecimal(), precise: $0.bool()) },
            skip: maybe { g in Skip(skippedSegments: g.int(0...9), recentlyRemovedDateRanges: g.list(0...2) { $0.text() }) },
            endList: bool(), segments: segments, trailingDateRanges: list(0...1) { $0.dateRange() },
            trailingTags: list(0...2) { $0.unknownTag() })
    }

    mutating func master() -> MasterPlaylist {
        MasterPlaylist(
            version: maybe { $0.int(1...12) }, independentSegments: bool(),
            start: maybe { StartPoint(timeOffset: $0.signedDecimal(), precise: $0.bool()) },
            sessionData: list(0...2) { g in
                let value = g.bool()
                return SessionData(
                    dataID: g.text(), value: value ? g.text() : nil, uri: value ? nil : g.text(),
                    language: g.maybe { $0.text() }, format: g.maybe { $0.token() })
            },
            sessionKeys: keys(),
            renditions: list(0...3) { g in
                let type = Rendition.MediaType.allCases[g.int(0...3)]
                return Rendition(
                    type: type, groupID: g.text(), name: g.text(), language: g.maybe { $0.text() },
                    associatedLanguage: g.maybe { $0.text() }, isDefault: g.bool(), autoselect: g.bool(), forced: g.bool(),
                    instreamID: g.maybe { $0.text() }, characteristics: g.maybe { $0.text() },
                    channels: g.maybe { $0.text() }, uri: type == .subtitles || g.bool() ? g.text() : nil)
            },
            variants: list(0...3) { g in
                Variant(
                    bandwidth: g.int(0...9_999_999), averageBandwidth: g.maybe { $0.int(0...9_999_999) },
                    codecs: g.maybe { $0.text() }, resolution: g.maybe { Resolution(width: $0.int(0...4000), height: $0.int(0...4000)) },
                    frameRate: g.maybe { $0.decimal() }, hdcpLevel: g.maybe { $0.token() }, audio: g.maybe { $0.text() },
                    video: g.maybe { $0.text() }, subtitles: g.maybe { $0.text() },
                    closedCaptions: g.maybe { $0.bool() ? ClosedCaptions.none : .group($0.text()) }, uri: g.uri())
            },
            iFrameVariants: list(0...2) { g in
                IFrameVariant(
                    bandwidth: g.int(0...999_999), averageBandwidth: g.maybe { $0.int(0...999_999) },
                    codecs: g.maybe { $0.text() }, resolution: g.maybe { Resolution(width: $0.int(0...4000), height: $0.int(0...4000)) },
                    hdcpLevel: g.maybe { $0.token() }, video: g.maybe { $0.text() }, uri: g.text())
            },
            unknownTags: list(0...2) { $0.unknownTag() })
    }
}
