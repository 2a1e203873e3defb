/// An attribute list as defined by RFC 8216 §4.2, read from one tag line.
///
/// Internal: the parsers read typed values through the accessors, which throw a
/// `PlaylistError` naming the tag, the attribute and the line. Unknown attributes are
/// ignored; an attribute given twice is an error (the RFC forbids it).
struct AttributeList {
    struct Value {
        var text: String
        var isQuoted: Bool
    }

    let tag: String
    let line: Int
    private var values: [String: Value] = [:]
    /// The attribute names in the order written.
    private(set) var names: [String] = []

    init(parsing text: String?, tag: String, line: Int) throws(PlaylistError) {
        self.tag = tag
        self.line = line
        let bytes = Array((text ?? "").utf8)
        var index = 0
        func fail(_ message: String) -> PlaylistError {
            PlaylistError(line: line, "\(tag) attribute list: \(message)")
        }
        while index < bytes.count {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
            let nameStart = index
            while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            guard !name.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                let rest = String(decoding: bytes[nameStart...], as: UTF8.self)
                throw fail("expected NAME=value at '\(PlaylistError.excerpt(rest))'")
            }
            index += 1
            let value: Value
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                let start = index + 1
                guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")) else {
                    throw fail("the quoted value of \(name) is not closed")
                }
                value = Value(text: String(decoding: bytes[start..<end], as: UTF8.self), isQuoted: true)
                index = end + 1
                guard index == bytes.count || bytes[index] == UInt8(ascii: ",") else {
                    throw fail("a comma was expected after the quoted value of \(name)")
                }
            } else {
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
                value = Value(text: String(decoding: bytes[start..<index], as: UTF8.self), isQuoted: false)
                guard !value.text.isEmpty else { throw fail("\(name) has no value") }
            }
            guard values[name] == nil else { throw fail("\(name) appears twice") }
            values[name] = value
            names.append(name)
            if index < bytes.count { index += 1 }  // the comma; a trailing comma is tolerated
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-")
    }

    private func fail(_ message: String) -> PlaylistError {
        PlaylistError(line: line, "\(tag) \(message)")
    }

    /// The value of `name` as written (quoted or not), for attributes read generically.
    func raw(_ name: String) -> Value? {
        values[name]
    }

    /// Throws "TAG needs NAME" when `value` is nil.
    func required<T>(_ name: String, _ value: T?) throws(PlaylistError) -> T {
        guard let value else { throw fail("needs \(name)") }
        return value
    }

    func quotedString(_ name: String) throws(PlaylistError) -> String? {
        guard let value = values[name] else { return nil }
        guard value.isQuoted else { throw fail("\(name) must be a quoted string") }
        return value.text
    }

    /// An enumerated string; quotes are tolerated.
    func enumerated(_ name: String) -> String? {
        values[name]?.text
    }

    /// An enumerated string that can be written back unquoted: quotes are tolerated
    /// around a value that holds no comma and is not empty.
    func token(_ name: String) throws(PlaylistError) -> String? {
        guard let value = values[name] else { return nil }
        guard !value.text.isEmpty, !value.text.contains(",") else {
            throw fail("\(name) '\(PlaylistError.excerpt(value.text))' is not an enumerated string")
        }
        return value.text
    }

    func decimalInteger(_ name: String) throws(PlaylistError) -> Int? {
        guard let value = values[name] else { return nil }
        guard !value.isQuoted, let number = Scalars.decimalInteger(value.text) else {
            throw fail("\(name) '\(PlaylistError.excerpt(value.text))' is not a decimal integer")
        }
        return number
    }

    func float(_ name: String) throws(PlaylistError) -> Double? {
        guard let value = values[name] else { return nil }
        guard !value.isQuoted, let number = Scalars.float(value.text) else {
            throw fail("\(name) '\(PlaylistError.excerpt(value.text))' is not a number")
        }
        return number
    }

    func resolution(_ name: String) throws(PlaylistError) -> Resolution? {
        guard let value = values[name] else { return nil }
        let parts = value.text.split(separator: "x", omittingEmptySubsequences: false)
        guard !value.isQuoted, parts.count == 2,
              let width = Scalars.decimalInteger(parts[0]), let height = Scalars.decimalInteger(parts[1])
        else {
            throw fail("\(name) '\(PlaylistError.excerpt(value.text))' is not WIDTHxHEIGHT")
        }
        return Resolution(width: width, height: height)
    }

    /// A hexadecimal sequence (`0x…`) of at most `maximumBytes` bytes, left-padded to it.
    func hexBytes(_ name: String, maximumBytes: Int) throws(PlaylistError) -> [UInt8]? {
        guard let value = values[name] else { return nil }
        guard !value.isQuoted, let bytes = Scalars.hexBytes(value.text, width: maximumBytes) else {
            throw fail("\(name) '\(PlaylistError.excerpt(value.text))' is not 0x and 1 to \(maximumBytes * 2) hex digits")
        }
        return bytes
    }

    /// `YES` or `NO`; absent means `defaultValue`.
    func yesNo(_ name: String, default defaultValue: Bool = false) throws(PlaylistError) -> Bool {
        guard let value = values[name] else { return defaultValue }
        switch value.text {
        case "YES": return true
        case "NO": return false
        default: throw fail("\(name) must be YES or NO, not '\(PlaylistError.excerpt(value.text))'")
        }
    }
}
