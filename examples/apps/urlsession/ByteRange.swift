import Foundation

/// A byte range of a resource: a segment of `#EXT-X-BYTERANGE:<length>[@<offset>]`, or an
/// init section of `#EXT-X-MAP:…,BYTERANGE="<length>[@<offset>]"` (RFC 8216 §4.3.2.2,
/// §4.3.2.5). The package stores it as a file of its own, holding exactly its bytes.
struct ByteRange: Codable, Sendable, Hashable {
    var length: Int
    var offset: Int

    /// The last byte, inclusive.
    var last: Int { offset + length - 1 }

    /// Just past the last byte: where a range with no offset of the same URI starts.
    var end: Int { offset + length }

    /// The `Range` header of the bytes not stored yet, when the file holds the first
    /// `stored` of them: `bytes=<offset+stored>-<last>`, never past the range's end.
    func header(resumingAt stored: Int) -> String { "bytes=\(offset + stored)-\(last)" }

    /// `<length>[@<offset>]` (nil for no text); without an offset the range starts at
    /// `continuing` (the end of the previous segment's range of the same URI; a MAP's
    /// starts at 0), and none there is an error.
    static func parse(_ text: String?, continuing: Int?) throws(PlaylistError) -> ByteRange? {
        guard let text else { return nil }
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "@", omittingEmptySubsequences: false)
        let numbers = parts.map { part in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } ? Int(part) : nil }
        guard (1...2).contains(parts.count), let length = numbers[0], length > 0, !numbers.contains(nil) else {
            throw PlaylistError("byte range \(text) is not <length>[@<offset>] with a length above 0")
        }
        guard let offset = parts.count == 2 ? numbers[1] : continuing else {
            throw PlaylistError("byte range \(text) has no offset and follows no byte range of the same URI")
        }
        guard !offset.addingReportingOverflow(length).overflow else { throw PlaylistError("byte range \(text) is too large") }
        return ByteRange(length: length, offset: offset)
    }

    /// The package path of this range of the resource whose package path is `local`:
    /// `v0/all.ts` → `v0/all.0-15603.ts` (its first and last byte before the extension).
    func localPath(of local: String) -> String {
        let slash = local.lastIndex(of: "/").map { local.index(after: $0) } ?? local.startIndex
        let name = local[slash...]
        let dot = name.dropFirst().lastIndex(of: ".") ?? name.endIndex
        return String(local[..<dot]) + ".\(offset)-\(last)" + String(local[dot...])
    }
}
