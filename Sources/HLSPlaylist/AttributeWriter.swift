/// Builds an attribute list (RFC 8216 §4.2) for the writers; nil values are skipped.
///
/// Quoted strings cannot hold `"` or control characters: they are replaced by `'` and a space,
/// so the output is always a valid playlist (such values do not round-trip).
struct AttributeWriter {
    private var parts: [String] = []

    var text: String { parts.joined(separator: ",") }

    static func sanitized(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out.append("'")
            case _ where PlaylistLines.isForbiddenControl(scalar): out.append(" ")
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    mutating func quoted(_ name: String, _ value: String?) {
        guard let value else { return }
        parts.append("\(name)=\"\(Self.sanitized(value))\"")
    }

    mutating func enumerated(_ name: String, _ value: String?) {
        guard let value else { return }
        parts.append("\(name)=\(value)")
    }

    mutating func integer(_ name: String, _ value: Int?) {
        guard let value else { return }
        parts.append("\(name)=\(value)")
    }

    mutating func float(_ name: String, _ value: Double?) {
        guard let value else { return }
        parts.append("\(name)=\(Scalars.decimal(value))")
    }

    mutating func resolution(_ name: String, _ value: Resolution?) {
        guard let value else { return }
        parts.append("\(name)=\(value)")
    }

    mutating func hex(_ name: String, _ value: [UInt8]?) {
        guard let value else { return }
        parts.append("\(name)=\(Scalars.hex(value))")
    }

    /// Writes `YES`, or nothing when `value` equals the attribute's default of NO.
    mutating func yes(_ name: String, _ value: Bool) {
        if value { parts.append("\(name)=YES") }
    }
}
