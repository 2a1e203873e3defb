/// Parsing of the human units profiles are written in: rates, sizes, durations
/// and probabilities.
///
/// Pure functions on values; call them from any thread. Each parser throws a
/// `UnitError` whose `reason` says what was wrong and what is allowed, ready to
/// be placed after a key path in a `ProfileError`. Printing lives in
/// `Units+Formatting.swift`.
public enum Units {
    /// What a rate looks like, for error messages.
    public static let rateExamples = "a rate like 780kbit/s, 1.5Mbit/s or unlimited"
    /// What a size looks like, for error messages.
    public static let sizeExamples = "a size like 1500, 64KiB or 1MB"
    /// What a duration looks like, for error messages.
    public static let durationExamples = "a duration like 100ms, 1.5s, 10m or 1h"
    /// What a probability looks like, for error messages.
    public static let probabilityExamples = "a probability like 1% or 0.01 (between 0 and 1)"

    /// Parses a rate: `780kbit/s`, `780kbps`, `1.44Mbit/s`, `8.1mbps`, `50KB/s`,
    /// a bare number of bit/s (`1000000`), or `unlimited`.
    ///
    /// The prefix (k, M, G) is decimal and case-insensitive; a lowercase `b`
    /// (`bit/s`, `bits/s`, `bps`, `b/s`) means bits, an uppercase `B` (`B/s`,
    /// `Bps`, `KiB/s`) means bytes. Zero is allowed and stalls the link.
    public static func parseRate(_ text: String) throws(UnitError) -> RateSpec {
        let trimmed = text.trimmingWhitespace
        if trimmed.lowercased() == "unlimited" { return .unlimited }
        let (number, suffix) = try split(trimmed, original: text, examples: rateExamples)
        guard let factor = rateFactor(suffix) else {
            throw UnitError(text: text, reason: "\"\(text)\" has an unknown unit \"\(suffix)\"; expected \(rateExamples)")
        }
        let value = number.value(times: factor)
        guard value.isFinite, value <= 1e15 else {
            throw UnitError(text: text, reason: "\"\(text)\" is too large; expected \(rateExamples)")
        }
        return .constant(bitsPerSecond: value)
    }

    /// Parses a size in bytes: `1500`, `1500B`, `64KiB`, `1MB`, `1.5MiB`.
    ///
    /// `KB`/`MB`/`GB` are decimal, `KiB`/`MiB`/`GiB` binary; the `B` must be
    /// uppercase (a lowercase `b` would mean bits). Fractions round to the nearest byte.
    public static func parseSize(_ text: String) throws(UnitError) -> Int {
        let (number, suffix) = try split(text.trimmingWhitespace, original: text, examples: sizeExamples)
        guard let factor = sizeFactor(suffix) else {
            throw UnitError(text: text, reason: "\"\(text)\" has an unknown unit \"\(suffix)\"; expected \(sizeExamples)")
        }
        let value = number.value(times: factor).rounded()
        guard value.isFinite, value < 1e18 else {
            throw UnitError(text: text, reason: "\"\(text)\" is too large; expected \(sizeExamples)")
        }
        return Int(value)
    }

    /// Parses a duration: `100ms`, `2s`, `1.5s`, `562.5ms`, `10m`, `1h`, `1m30s`,
    /// `250us`, `0`. Units are `ns`, `us` (or `µs`), `ms`, `s`, `m` (or `min`), `h`;
    /// only zero may be written without one. Rounds to the nearest nanosecond.
    public static func parseDuration(_ text: String) throws(UnitError) -> Duration {
        var rest = Substring(text.trimmingWhitespace)
        if rest.hasPrefix("-") {
            throw UnitError(text: text, reason: "\"\(text)\" is negative; expected \(durationExamples)")
        }
        guard !rest.isEmpty else {
            throw UnitError(text: text, reason: "the value is empty; expected \(durationExamples)")
        }
        var total = 0.0
        while !rest.isEmpty {
            let numberText = rest.prefix { $0.isNumber || $0 == "." || $0 == "+" }
            guard let number = DecimalNumber(String(numberText)) else {
                throw UnitError(text: text, reason: "\"\(text)\" is not a duration; expected \(durationExamples)")
            }
            rest = rest.dropFirst(numberText.count)
            let unitText = rest.prefix { !($0.isNumber || $0 == ".") }
            rest = rest.dropFirst(unitText.count)
            let unit = unitText.trimmingWhitespace
            if unit.isEmpty {
                guard number.isZero, total == 0, rest.isEmpty else {
                    throw UnitError(text: text, reason: "\"\(text)\" has no unit; expected \(durationExamples)")
                }
                return .zero
            }
            guard let nanos = durationFactor(unit) else {
                throw UnitError(text: text, reason: "\"\(text)\" has an unknown unit \"\(unit)\"; expected \(durationExamples)")
            }
            total += number.value(times: nanos)
        }
        guard total.isFinite, total < 9e18 else {
            throw UnitError(text: text, reason: "\"\(text)\" is too long; expected \(durationExamples)")
        }
        return .nanoseconds(Int64(total.rounded()))
    }

    /// Parses a probability: a percentage (`1%`, `0.5%`, `100%`) or a fraction
    /// between 0 and 1 (`0.01`, `1`).
    public static func parseProbability(_ text: String) throws(UnitError) -> Double {
        let trimmed = text.trimmingWhitespace
        let isPercent = trimmed.hasSuffix("%")
        let numberText = isPercent ? String(trimmed.dropLast()).trimmingWhitespace : trimmed
        if numberText.hasPrefix("-") {
            throw UnitError(text: text, reason: "\"\(text)\" is negative; expected \(probabilityExamples)")
        }
        guard var number = DecimalNumber(numberText) else {
            throw UnitError(text: text, reason: "\"\(text)\" is not a probability; expected \(probabilityExamples)")
        }
        if isPercent { number.exponent -= 2 }  // one division, so 0.3% is exactly 0.003
        let value = number.value(times: 1)
        guard value <= 1 else {
            let hint = isPercent ? "" : "; write \(text)% for a percentage"
            throw UnitError(text: text, reason: "\"\(text)\" is more than 1 (100%)\(hint); expected \(probabilityExamples)")
        }
        return value
    }

    // MARK: - Pieces

    /// Splits `12.5 kbit/s` into its number and unit, rejecting signs, NaN and infinities.
    private static func split(
        _ text: String, original: String, examples: String
    ) throws(UnitError) -> (DecimalNumber, String) {
        if text.hasPrefix("-") {
            throw UnitError(text: original, reason: "\"\(original)\" is negative; expected \(examples)")
        }
        let numberText = text.prefix { $0.isNumber || $0 == "." || $0 == "+" || $0 == "e" || $0 == "E" }
        // `e` belongs to the number only when digits follow (`1e6`), never in `1ebit`.
        var numberPart = String(numberText)
        while let last = numberPart.last, last == "e" || last == "E" || last == "+" { numberPart.removeLast() }
        guard let number = DecimalNumber(numberPart) else {
            let lower = text.lowercased()
            let what = lower.contains("nan") || lower.contains("inf") ? "not a finite number" : "not understood"
            throw UnitError(text: original, reason: "\"\(original)\" is \(what); expected \(examples)")
        }
        return (number, String(text.dropFirst(numberPart.count)).trimmingWhitespace)
    }

    private static func rateFactor(_ suffix: String) -> Double? {
        if suffix.isEmpty { return 1 }
        var rest = Substring(suffix)
        var factor = 1.0
        var binary = false
        if let first = rest.first, let scale = decimalPrefix(first) {
            rest = rest.dropFirst()
            if rest.hasPrefix("i") {
                binary = true
                rest = rest.dropFirst()
                factor = pow1024(scale)
            } else {
                factor = scale
            }
        }
        switch rest {
        case "bit/s", "bits/s", "bps", "b/s": return binary ? nil : factor
        case "B/s", "Bps": return factor * 8
        default: return nil
        }
    }

    private static func sizeFactor(_ suffix: String) -> Double? {
        switch suffix {
        case "", "B", "bytes": return 1
        case "KB", "kB": return 1e3
        case "MB": return 1e6
        case "GB": return 1e9
        case "KiB", "kiB": return 1024
        case "MiB": return 1024 * 1024
        case "GiB": return 1024 * 1024 * 1024
        default: return nil
        }
    }

    private static func durationFactor(_ unit: String) -> Double? {
        switch unit {
        case "ns": 1
        case "us", "µs", "μs": 1e3
        case "ms": 1e6
        case "s", "sec": 1e9
        case "m", "min": 60e9
        case "h": 3600e9
        default: nil
        }
    }

    private static func decimalPrefix(_ c: Character) -> Double? {
        switch c {
        case "k", "K": 1e3
        case "m", "M": 1e6
        case "g", "G": 1e9
        default: nil
        }
    }

    /// The binary counterpart of a decimal prefix: 1e3 → 1024, 1e6 → 1024², 1e9 → 1024³.
    private static func pow1024(_ decimalScale: Double) -> Double {
        switch decimalScale {
        case 1e3: 1024
        case 1e6: 1024 * 1024
        default: 1024 * 1024 * 1024
        }
    }
}

/// A unit that could not be parsed; `reason` says what is allowed.
public struct UnitError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text as written.
    public var text: String
    /// What is wrong and what was expected, e.g. `"fast" is not understood; expected a rate like …`.
    public var reason: String

    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }

    public var description: String { reason }
}

/// A decimal number kept as integer digits and a power of ten, so that
/// `1.44` × 1e6 gives exactly 1 440 000 rather than a binary-fraction neighbour.
struct DecimalNumber: Equatable {
    var digits: UInt64
    var exponent: Int

    /// Parses `[+]digits[.digits][e[+-]digits]`; nil for anything else.
    init?(_ text: String) {
        var mantissa = Substring(text)
        var exponent = 0
        if let e = mantissa.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let power = Int(mantissa[mantissa.index(after: e)...]), abs(power) < 300 else { return nil }
            exponent = power
            mantissa = mantissa[..<e]
        }
        if mantissa.hasPrefix("+") { mantissa = mantissa.dropFirst() }
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              parts.contains(where: { !$0.isEmpty })
        else { return nil }
        let whole = parts[0], fraction = parts.count == 2 ? parts[1] : ""
        let all = (whole + fraction).drop { $0 == "0" }
        guard all.count <= 18 else { return nil }
        digits = UInt64(all) ?? 0
        self.exponent = exponent - fraction.count
    }

    var isZero: Bool { digits == 0 }

    /// The number times `factor`, multiplying before dividing so that common
    /// decimal inputs come out exact.
    func value(times factor: Double) -> Double {
        let scaled = Double(digits) * factor
        if exponent >= 0 { return scaled * pow10(exponent) }
        return scaled / pow10(-exponent)
    }

    private func pow10(_ n: Int) -> Double {
        var result = 1.0
        for _ in 0..<n { result *= 10 }
        return result
    }
}

extension StringProtocol {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
