/// Why a request failed, classified the way the engine reacts to it.
public enum TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No connection: refused, unreachable, reset before the answer, or timed out connecting.
    case unreachable(String)
    /// Bytes stopped flowing for the stall timeout.
    case stalled
    /// The connection broke mid-answer (reset, early end).
    case interrupted(String)
    /// A captive portal answered in place of the origin (`CaptivePortal`): the network is
    /// not usable until the user signs in. Nothing of the answer is kept.
    case captivePortal(String)
    /// The server answered with an error status; `retryAfter` in seconds when it said.
    case status(Int, retryAfter: Int?)
    /// The answer does not make sense (a range that is not the one asked for, a body
    /// too large for what it is).
    case invalidResponse(String)
    /// Writing the bytes locally failed; `noSpace` when the disk is full.
    case storage(String, noSpace: Bool)
    /// The request was canceled by the engine (pause, path change, cancel).
    case canceled

    /// The network failed the request: suspend or retry, never fail the download. A
    /// captive portal counts: the network is there but not usable yet.
    public var isNetwork: Bool {
        switch self {
        case .unreachable, .stalled, .interrupted, .captivePortal: true
        default: false
        }
    }

    /// Retrying cannot help: the resource is gone or refused for good (404, 410, other
    /// 4xx but 408 and 429), or the answer makes no sense.
    public var isPermanent: Bool {
        switch self {
        case .status(let code, _): (400..<500).contains(code) && code != 408 && code != 429
        case .invalidResponse: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let why): "cannot connect: \(why)"
        case .stalled: "no bytes arrived for the stall timeout"
        case .interrupted(let why): "connection broke mid-answer: \(why)"
        case .captivePortal(let why):
            "a captive portal answered instead of the origin (\(why)); the network is not usable until it lets the device through"
        case .status(let code, let retryAfter):
            "HTTP \(code)" + (retryAfter.map { " (retry after \($0) s)" } ?? "")
        case .invalidResponse(let why): "invalid response: \(why)"
        case .storage(let why, _): "cannot write the download: \(why)"
        case .canceled: "canceled"
        }
    }
}
