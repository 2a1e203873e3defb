/// Cuts a byte stream into lines (`\n`, an optional `\r` before it dropped), for the
/// JSON-lines framing of `AppWire`. A value type owned by the one thread that reads
/// the stream: an app's stdin reader or the harness's reader of the app's stdout.
public struct AppLineSplitter: Sendable {
    private var pending: [UInt8] = []

    /// An empty splitter.
    public init() {}

    /// The lines `bytes` completes, in order; an unfinished tail is kept for later.
    public mutating func append(_ bytes: some Collection<UInt8>) -> [String] {
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
    public mutating func finish() -> String? {
        defer { pending = [] }
        return pending.isEmpty ? nil : Self.text(pending)
    }

    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.last == 0x0D ? bytes.dropLast() : bytes[...], as: UTF8.self)
    }
}
