/// One classified line of playlist text (internal to the parsers).
struct PlaylistLine: Sendable {
    enum Kind: Sendable {
        /// `#EXT…` — `name` without the `#`, `value` after the first `:` if any.
        case tag(name: String, value: String?)
        /// A line that is not blank and does not start with `#`.
        case uri(String)
    }

    /// 1-based line number in the input.
    let number: Int
    let kind: Kind
}

/// Splits playlist text into tag and URI lines, dropping blank lines and comments.
///
/// Enforces the size guards, the `#EXTM3U` header and the ban on control characters, so
/// parsers only see bounded, single-line input. Works on UTF-8 bytes in one linear pass.
enum PlaylistLines {
    /// Input larger than this is refused before any parsing.
    static let maximumInputBytes = 16 * 1024 * 1024
    /// A single line longer than this is refused.
    static let maximumLineBytes = 64 * 1024

    static func split(_ text: String) throws(PlaylistError) -> [PlaylistLine] {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumInputBytes else {
            throw PlaylistError(line: 0, "the playlist is \(bytes.count) bytes; the limit is 16 MiB")
        }
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0  // a byte order mark is tolerated
        var result: [PlaylistLine] = []
        var number = 0
        while start <= bytes.count {
            number += 1
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            defer { start = end + 1 }
            guard end - start <= maximumLineBytes else {
                throw PlaylistError(line: number, "the line is \(end - start) bytes; the limit is 64 KiB")
            }
            var lower = start, upper = end
            while lower < upper, isBlank(bytes[lower]) { lower += 1 }
            while upper > lower, isBlank(bytes[upper - 1]) { upper -= 1 }
            let line = bytes[lower..<upper]
            if let control = line.first(where: isForbiddenControl) {
                let code = String(control, radix: 16, uppercase: true)
                throw PlaylistError(
                    line: number,
                    "control character U+\(String(repeating: "0", count: 4 - code.count) + code) is not allowed (RFC 8216 §4.1)")
            }
            if number == 1 {
                guard line.elementsEqual("#EXTM3U".utf8) else {
                    throw PlaylistError(line: 1, "a playlist must start with #EXTM3U")
                }
                continue
            }
            if line.isEmpty { continue }
            if line.starts(with: "#EXT".utf8) {
                let body = line.dropFirst()
                if let colon = body.firstIndex(of: UInt8(ascii: ":")) {
                    let name = String(decoding: body[..<colon], as: UTF8.self)
                    let value = String(decoding: body[(colon + 1)...], as: UTF8.self)
                    result.append(PlaylistLine(number: number, kind: .tag(name: name, value: value)))
                } else {
                    let name = String(decoding: body, as: UTF8.self)
                    result.append(PlaylistLine(number: number, kind: .tag(name: name, value: nil)))
                }
            } else if line.first != UInt8(ascii: "#") {
                result.append(PlaylistLine(number: number, kind: .uri(String(decoding: line, as: UTF8.self))))
            }  // else a comment
        }
        return result
    }

    /// Space, TAB and CR (the CR of a CRLF ending) are trimmed from both ends of a line.
    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D
    }

    /// C0 controls other than TAB, and DEL: RFC 8216 §4.1 forbids them (a CR is allowed
    /// only as part of a CRLF line ending, which has been trimmed by now).
    static func isForbiddenControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    static func isForbiddenControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && isForbiddenControl(UInt8(scalar.value))
    }
}
