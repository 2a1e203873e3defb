import Foundation

/// What part of a resource a GET answers, from its `Range` and `If-Range`
/// headers (RFC 9110 §14). Single ranges only: a multi-range request is
/// answered whole, which the RFC allows.
public enum RangeSelection: Equatable, Sendable {
    /// 200 with the whole body.
    case full
    /// 206 with these bytes (inclusive offsets) and `Content-Range: bytes a-b/length`.
    case partial(ClosedRange<Int>)
    /// 416 with `Content-Range: bytes */length`.
    case unsatisfiable

    /// Decides the answer for a resource of `length` bytes.
    /// - Parameters:
    ///   - range: the `Range` header, if any. Syntax the server does not understand is ignored (200).
    ///   - ifRange: the `If-Range` header, if any. The range applies only when it equals the
    ///     strong `etag` exactly, or is an HTTP-date equal to `lastModified`; otherwise 200.
    public static func select(range: String?, ifRange: String?, etag: String, lastModified: Date,
                              length: Int) -> RangeSelection {
        guard let range else { return .full }
        if let ifRange, !validator(ifRange, matches: etag, lastModified: lastModified) { return .full }
        guard let spec = ByteRangeSpec(range) else { return .full }
        return spec.select(length: length)
    }

    private static func validator(_ value: String, matches etag: String, lastModified: Date) -> Bool {
        let value = value.trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("\"") { return value == etag && !etag.hasPrefix("W/") }
        if value.hasPrefix("W/") { return false }  // weak validators never match for ranges
        guard let date = HTTPDate.parse(value) else { return false }
        return Int(date.timeIntervalSince1970) == Int(lastModified.timeIntervalSince1970)
    }
}

/// One `bytes=` range: `a-b`, `a-` or `-n`.
struct ByteRangeSpec: Equatable {
    var first: Int?
    var last: Int?

    init?(_ header: String) {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes=") else { return nil }
        let set = text.dropFirst(6)
        guard !set.contains(","), let dash = set.firstIndex(of: "-") else { return nil }
        let a = set[..<dash].trimmingCharacters(in: .whitespaces)
        let b = set[set.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        func number(_ s: String) -> Int?? {
            if s.isEmpty { return .some(nil) }
            guard s.count <= 18, s.allSatisfy(\.isASCII), s.allSatisfy(\.isNumber), let n = Int(s) else { return nil }
            return .some(n)
        }
        guard let first = number(a), let last = number(b), first != nil || last != nil else { return nil }
        if let first, let last, last < first { return nil }
        self.first = first
        self.last = last
    }

    func select(length: Int) -> RangeSelection {
        switch (first, last) {
        case let (first?, last):
            guard first < length else { return .unsatisfiable }
            return .partial(first...min(last ?? (length - 1), length - 1))
        case let (nil, suffix?):
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - suffix)...(length - 1))
        case (nil, nil):
            return .full
        }
    }
}

/// IMF-fixdate, the one HTTP date format servers send (RFC 9110 §5.6.7).
public enum HTTPDate {
    private static let formatter: DateFormatter = {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f
    }()
    private static let lock = NSLock()

    public static func format(_ date: Date) -> String {
        lock.withLock { formatter.string(from: date) }
    }

    public static func parse(_ text: String) -> Date? {
        lock.withLock { formatter.date(from: text) }
    }
}
