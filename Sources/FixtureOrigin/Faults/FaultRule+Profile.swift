import BenchCore

extension HTTPFault {
    /// The origin's fault for a profile's `OriginFault` (Profiles/README.md, "Origin faults").
    public init(_ fault: OriginFault) {
        switch fault {
        case let .status(code, retryAfter): self = .status(code, retryAfter: retryAfter)
        case let .stall(afterBytes, duration): self = .stallBody(afterBytes: afterBytes, duration: duration)
        case let .truncate(afterBytes): self = .truncateBody(afterBytes: afterBytes)
        case let .slowFirstByte(delay): self = .addedTimeToFirstByte(delay)
        case .malformedPlaylist: self = .malformedPlaylist
        case .captivePortal: self = .captivePortal
        }
    }
}

extension FaultRule {
    /// The rule that plays a profile's origin fault window while it is open: every
    /// request whose path matches the window's pattern, whatever its method, gets the
    /// fault. `id` names it in the origin's log (`faultRuleID`).
    public init(window: OriginFaultWindow, id: String) {
        self.init(id: id, path: window.path, fault: HTTPFault(window.fault))
    }
}
