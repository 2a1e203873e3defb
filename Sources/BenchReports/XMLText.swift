/// Escaping for text that goes into XML and XHTML-compatible HTML.
///
/// Text from a trace or a report can hold anything, including characters XML 1.0
/// cannot carry even escaped (C0 controls other than tab, newline and return,
/// U+FFFE, U+FFFF); those become U+FFFD so the file stays well-formed.
enum XMLText {
    /// `text` made safe for element content: `&`, `<`, `>` escaped.
    static func content(_ text: String) -> String {
        escape(text, attribute: false)
    }

    /// `text` made safe inside a double-quoted attribute: also `"` and `'`, and
    /// tab, newline and return as character references so parsers keep them.
    static func attribute(_ text: String) -> String {
        escape(text, attribute: true)
    }

    /// `text` with the characters XML cannot carry replaced by U+FFFD (no escaping),
    /// for text that a template engine escapes itself.
    static func legal(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { !isLegal($0) }) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(isLegal(scalar) ? scalar : "\u{FFFD}") }
        return String(scalars)
    }

    static func isLegal(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: true
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    private static func escape(_ text: String, attribute: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            case "'" where attribute: out += "&#39;"
            case "\t" where attribute: out += "&#9;"
            case "\n" where attribute: out += "&#10;"
            case "\r": out += "&#13;"
            default: out.unicodeScalars.append(isLegal(scalar) ? scalar : "\u{FFFD}")
            }
        }
        return out
    }
}
