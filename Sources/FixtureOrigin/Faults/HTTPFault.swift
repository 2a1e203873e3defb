import BenchCore

/// One thing the fixture origin does wrong on purpose when a `FaultRule` fires. The
/// HTTP server performs it; this type only says what to do.
///
/// JSON form (a `type` discriminator plus that fault's fields; durations are a number
/// of seconds or a string such as `"250ms"`, `"2s"` — `Units.parseDuration`):
/// ```json
/// {"type": "status", "code": 503, "retry_after": "2s"}
/// {"type": "truncate_body", "after_bytes": 1000}
/// {"type": "wrong_content_length", "delta": 100}
/// {"type": "stall_body", "after_bytes": 4096, "duration": "30s"}
/// {"type": "malformed_playlist"}
/// {"type": "added_time_to_first_byte", "duration": "1500ms"}
/// {"type": "captive_portal"}
/// ```
public enum HTTPFault: Sendable, Hashable {
    /// Answer with this status (400…599; the suite uses 404, 410, 500, 503) and an
    /// empty body; with `retryAfter`, add `Retry-After` (`retryAfterHeaderValue`).
    case status(Int, retryAfter: Duration?)
    /// Send the right headers, then close the connection after `afterBytes` body bytes.
    case truncateBody(afterBytes: Int)
    /// Send the full body but a `Content-Length` off by `delta` (may be negative; the
    /// server clamps at 0). Too long makes the client wait; too short leaves junk.
    case wrongContentLength(delta: Int)
    /// Send `afterBytes` body bytes, then nothing: for `duration`, then the rest, or
    /// forever (until the client gives up) when `duration` is nil.
    case stallBody(afterBytes: Int, duration: Duration?)
    /// Serve the playlist after `HTTPFault.corrupt(playlist:)`. On a non-playlist
    /// response the server leaves the body alone.
    case malformedPlaylist
    /// Wait this long before the first byte of the response.
    case addedTimeToFirstByte(Duration)
    /// Answer `200 OK` with `captivePortalPage` (text/html) whatever was asked for, as a
    /// public hotspot's captive portal does before the user signs in. A request to the
    /// license server is answered so too, and the license server issues nothing.
    case captivePortal

    /// The login page `.captivePortal` serves.
    public static let captivePortalPage = """
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><title>Sign in to Station WiFi</title></head>
        <body><h1>Welcome to Station WiFi</h1>
        <form method="post" action="/login"><label>Email <input name="email"></label>
        <button>Accept the terms and connect</button></form></body></html>

        """

    /// Whether the fault answers in place of the origin (the request is never served):
    /// an error status or a captive portal.
    public var answersInstead: Bool {
        switch self {
        case .status, .captivePortal: true
        default: false
        }
    }

    /// The `Retry-After` header value for `.status`: whole seconds, rounded up; nil when
    /// there is no retry-after or this is another fault.
    public var retryAfterHeaderValue: String? {
        guard case .status(_, let retryAfter?) = self else { return nil }
        let nanos = retryAfter.nanoseconds
        return String((nanos + 999_999_999) / 1_000_000_000)
    }

    /// Why this fault cannot be performed, or nil when it can.
    public var problem: String? {
        switch self {
        case .status(let code, _) where !(400...599).contains(code):
            "status \(code) is not an error status (400…599)"
        case .truncateBody(let n) where n < 0, .stallBody(let n, _) where n < 0:
            "after_bytes must not be negative"
        default:
            nil
        }
    }
}

extension HTTPFault: Codable {
    private enum Kind: String, Codable {
        case status, truncateBody = "truncate_body", wrongContentLength = "wrong_content_length"
        case stallBody = "stall_body", malformedPlaylist = "malformed_playlist"
        case addedTimeToFirstByte = "added_time_to_first_byte", captivePortal = "captive_portal"
    }

    private enum CodingKeys: String, CodingKey {
        case type, code, retryAfter = "retry_after", afterBytes = "after_bytes", delta, duration
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(Kind.self, forKey: .type) {
        case .status:
            self = .status(try c.decode(Int.self, forKey: .code), retryAfter: try FaultDuration.decode(c, .retryAfter))
        case .truncateBody: self = .truncateBody(afterBytes: try c.decode(Int.self, forKey: .afterBytes))
        case .wrongContentLength: self = .wrongContentLength(delta: try c.decode(Int.self, forKey: .delta))
        case .stallBody:
            self = .stallBody(
                afterBytes: try c.decode(Int.self, forKey: .afterBytes), duration: try FaultDuration.decode(c, .duration))
        case .malformedPlaylist: self = .malformedPlaylist
        case .addedTimeToFirstByte:
            guard let duration = try FaultDuration.decode(c, .duration) else {
                throw DecodingError.keyNotFound(
                    CodingKeys.duration, .init(codingPath: c.codingPath, debugDescription: "added_time_to_first_byte needs a duration"))
            }
            self = .addedTimeToFirstByte(duration)
        case .captivePortal: self = .captivePortal
        }
        if let problem {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: problem))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .status(let code, let retryAfter):
            try c.encode(Kind.status, forKey: .type)
            try c.encode(code, forKey: .code)
            try c.encodeIfPresent(retryAfter.map(FaultDuration.text), forKey: .retryAfter)
        case .truncateBody(let n):
            try c.encode(Kind.truncateBody, forKey: .type)
            try c.encode(n, forKey: .afterBytes)
        case .wrongContentLength(let delta):
            try c.encode(Kind.wrongContentLength, forKey: .type)
            try c.encode(delta, forKey: .delta)
        case .stallBody(let n, let duration):
            try c.encode(Kind.stallBody, forKey: .type)
            try c.encode(n, forKey: .afterBytes)
            try c.encodeIfPresent(duration.map(FaultDuration.text), forKey: .duration)
        case .malformedPlaylist:
            try c.encode(Kind.malformedPlaylist, forKey: .type)
        case .addedTimeToFirstByte(let duration):
            try c.encode(Kind.addedTimeToFirstByte, forKey: .type)
            try c.encode(FaultDuration.text(duration), forKey: .duration)
        case .captivePortal:
            try c.encode(Kind.captivePortal, forKey: .type)
        }
    }
}

/// Durations in fault JSON: read from a number of seconds or a `Units.parseDuration`
/// string; written as whole milliseconds (`"250ms"`) or, if not whole, nanoseconds,
/// so that a round trip is exact.
enum FaultDuration {
    static func text(_ duration: Duration) -> String {
        let nanos = duration.nanoseconds
        return nanos % 1_000_000 == 0 ? "\(nanos / 1_000_000)ms" : "\(nanos)ns"
    }

    static func decode<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> Duration? {
        guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
        if let seconds = try? c.decode(Double.self, forKey: key) {
            guard seconds.isFinite, seconds >= 0, seconds < 9e9 else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "a duration must be 0 s or more")
            }
            return .nanoseconds(Int64((seconds * 1e9).rounded()))
        }
        let text = try c.decode(String.self, forKey: key)
        do {
            return try Units.parseDuration(text)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: error.description)
        }
    }
}
