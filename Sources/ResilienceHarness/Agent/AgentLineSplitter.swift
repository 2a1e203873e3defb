/// Cuts a byte stream into lines (`\n`, an optional `\r` before it dropped), for the
/// JSON-lines framing of `AgentWire`. A value type owned by the one thread that reads
/// the stream: the agent's stdin reader or `AgentProcess`'s stdout reader.
struct AgentLineSplitter {
    private var pending: [UInt8] = []

    /// The lines `bytes` completes, in order; an unfinished tail is kept for later.
    mutating func append(_ bytes: some Collection<UInt8>) -> [String] {
        var lines: [String] = []
        for byte in bytes {
            if byte == 0x0A {
                lines.append(Self.text(pending))
                pending.removeAll(keepingCapacity: true)
            } else {
                pending.append(byte)
            }
        }
        return lines
    }

    /// The unfinished tail at end of stream, if any (a last line without newline).
    mutating func finish() -> String? {
        defer { pending = [] }
        return pending.isEmpty ? nil : Self.text(pending)
    }

    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.last == 0x0D ? bytes.dropLast() : bytes[...], as: UTF8.self)
    }
}
