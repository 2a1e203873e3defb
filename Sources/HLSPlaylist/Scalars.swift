/// Strict parsers and exact formatters for the scalar types of RFC 8216 §4.2.
enum Scalars {
    /// `decimal-integer`: ASCII digits only, fitting in `Int`.
    static func decimalInteger<S: StringProtocol>(_ text: S) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    /// `signed-decimal-floating-point`: digits, at most one `.`, an optional leading `-`.
    /// No exponents, no `inf`/`nan`, and the value must be finite.
    static func float<S: StringProtocol>(_ text: S) -> Double? {
        var body = Substring(text)
        if body.hasPrefix("-") { body = body.dropFirst() }
        let digits = body.filter { $0 != "." }
        guard !digits.isEmpty, body.count - digits.count <= 1,
              digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let value = Double(String(text)), value.isFinite
        else { return nil }
        return value
    }

    /// `0x` followed by 1…2·width hex digits, left-padded to `width` bytes.
    static func hexBytes(_ text: String, width: Int) -> [UInt8]? {
        guard text.hasPrefix("0x") || text.hasPrefix("0X") else { return nil }
        var digits: [UInt8] = []
        for scalar in text.utf8.dropFirst(2) {
            switch scalar {
            case 0x30...0x39: digits.append(scalar - 0x30)
            case 0x41...0x46: digits.append(scalar - 0x41 + 10)
            case 0x61...0x66: digits.append(scalar - 0x61 + 10)
            default: return nil
            }
        }
        guard !digits.isEmpty, digits.count <= width * 2 else { return nil }
        digits.insert(contentsOf: repeatElement(0, count: width * 2 - digits.count), at: 0)
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    /// Lowercase hex of `bytes`, prefixed with `0x`.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = Array("0x".utf8)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The shortest decimal text that reads back as exactly `value`, never in exponent form.
    static func decimal(_ value: Double) -> String {
        let text = value.description
        guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }),
              let exponent = Int(text[text.index(after: e)...])
        else { return text }
        var mantissa = String(text[..<e])
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa.removeFirst() }
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        let whole = String(parts[0])
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        var digits = whole + fraction
        var point = whole.count + exponent
        if point <= 0 {
            digits = String(repeating: "0", count: 1 - point) + digits
            point = 1
        } else if point >= digits.count {
            digits += String(repeating: "0", count: point - digits.count + 1)
        }
        let index = digits.index(digits.startIndex, offsetBy: point)
        return (negative ? "-" : "") + digits[..<index] + "." + digits[index...]
    }
}
