/// A stretch of a profile's timeline during which the fixture origin misbehaves for the
/// requests whose path matches `path`: one entry of a profile's `origin:` section
/// (Profiles/README.md). A value; the harness turns it into one of the origin's fault
/// rules when the window opens and removes that rule when it closes.
public struct OriginFaultWindow: Equatable, Sendable {
    /// When the fault begins, from the start of the run.
    public var at: Duration
    /// How long it lasts (`for:` in YAML); more than zero.
    public var duration: Duration
    /// A short human label (`captive portal at station A`), shown in events and reports.
    public var label: String?
    /// Which request paths it applies to: a glob (`*` within a path component, `**`
    /// across them, `?` one character), the whole path without its query string.
    public var path: String
    /// What the origin does to a matching request while the window is open.
    public var fault: OriginFault

    /// Every path: the pattern a window without `path:` gets.
    public static let everyPath = "/**"

    public init(at: Duration, duration: Duration, label: String? = nil, path: String = everyPath, fault: OriginFault) {
        self.at = at
        self.duration = duration
        self.label = label
        self.path = path
        self.fault = fault
    }

    /// When the window closes, from the start of the run.
    public var end: Duration { at + duration }

    /// `captive portal on every path` or `status 503, retry after 2s on /videos/**`.
    public var summary: String {
        fault.summary + (path == Self.everyPath ? " on every path" : " on \(path)")
    }
}

/// What the origin does wrong during an `OriginFaultWindow`: the fixture origin's HTTP
/// faults (`FixtureOrigin.HTTPFault`) a profile may name.
public enum OriginFault: Hashable, Sendable {
    /// Answer this error status (400…599) with an empty body, and `Retry-After` when given.
    case status(code: Int, retryAfter: Duration?)
    /// Send `afterBytes` of the body, then nothing: for `duration`, then the rest, or
    /// until the client gives up when nil (the response hangs).
    case stall(afterBytes: Int, duration: Duration?)
    /// Send the headers and `afterBytes` of the body, then close the connection.
    case truncate(afterBytes: Int)
    /// Wait this long before the response begins.
    case slowFirstByte(Duration)
    /// Serve playlists broken so that no strict parser accepts them.
    case malformedPlaylist
    /// Answer `200 OK` with an HTML login page whatever was asked for, as the captive
    /// portal of a public hotspot does before the user signs in.
    case captivePortal

    /// `status 503, retry after 2s`, `stall after 0B`, `captive portal`…
    public var summary: String {
        switch self {
        case let .status(code, retryAfter): "status \(code)" + (retryAfter.map { ", retry after \(Units.format($0))" } ?? "")
        case let .stall(afterBytes, duration):
            "stall after \(Units.format(bytes: afterBytes))" + (duration.map { " for \(Units.format($0))" } ?? " until the client gives up")
        case let .truncate(afterBytes): "truncated after \(Units.format(bytes: afterBytes))"
        case let .slowFirstByte(delay): "first byte \(Units.format(delay)) late"
        case .malformedPlaylist: "malformed playlists"
        case .captivePortal: "captive portal"
        }
    }
}
