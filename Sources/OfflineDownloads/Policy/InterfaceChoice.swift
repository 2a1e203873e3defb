import BenchCore

/// Which interface a download may use on a network path, or why it may use none.
///
/// Pure: the download manager computes it for each download whenever the path
/// changes (`NetworkPath` as an `NWPathMonitor` publishes it) and feeds it to the
/// download's state machine inside `DownloadConditions`.
///
/// Rules:
/// - WiFi is preferred whenever it is up, even when cellular is up and allowed.
/// - Cellular is used only when WiFi is down and the download allows cellular.
/// - Only cellular up and not allowed → `.cellularNotAllowed`; nothing up → `.noNetwork`.
///
/// "Cellular" means the interface kind, as `allowsCellularAccess` does; an expensive
/// WiFi (a personal hotspot) and Low Data Mode (`isConstrained`) do not change the
/// choice.
public enum InterfaceChoice: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Transfer over this interface.
    case use(InterfaceKind)
    /// No interface is up: suspend with `.network`.
    case noNetwork
    /// Only cellular is up and the download may not use it: suspend with `.cellularNotAllowed`.
    case cellularNotAllowed

    /// The choice for a download that does (or does not) allow cellular on `path`.
    public init(path: NetworkPath, allowsCellular: Bool) {
        if path.interface(.wifi) != nil {
            self = .use(.wifi)
        } else if path.interface(.cellular) != nil {
            self = allowsCellular ? .use(.cellular) : .cellularNotAllowed
        } else {
            self = .noNetwork
        }
    }

    /// The interface to transfer over, or nil when none may be used.
    public var interface: InterfaceKind? {
        if case .use(let kind) = self { return kind }
        return nil
    }

    /// The reason to suspend, or nil when an interface may be used.
    public var suspensionReason: SuspensionReason? {
        switch self {
        case .use: nil
        case .noNetwork: .network
        case .cellularNotAllowed: .cellularNotAllowed
        }
    }

    /// `use(wifi)`, `noNetwork` or `cellularNotAllowed`.
    public var description: String {
        switch self {
        case .use(let kind): "use(\(kind))"
        case .noNetwork: "noNetwork"
        case .cellularNotAllowed: "cellularNotAllowed"
        }
    }
}
