import BenchCore
import AppProtocol

/// One download the harness requested (`.harness(.downloadRequested)` with a token),
/// with the state changes the agent reported for its token, in time order.
public struct TracedDownload: Sendable, Hashable {
    /// The engine's token for it.
    public var token: String
    /// The catalog id of the video; its origin paths are `/videos/{video}/…`.
    public var video: String
    public var allowsCellular: Bool
    public var isProtected: Bool
    /// The license it needs, as the catalog entry the harness sent names it
    /// (`.harness(.licenseKeyOf)`); nil for a clear video, or when none was recorded.
    public var licenseKey: CatalogLicenseKey? = nil
    /// When the harness asked for it.
    public var requestedAt: UInt64
    /// Every `stateChanged` of the token, in time order.
    public var changes: [TracedStateChange]

    /// The interfaces it may use: WiFi, and cellular when allowed.
    public var allowedInterfaces: Set<InterfaceKind> {
        allowsCellular ? [.wifi, .cellular] : [.wifi]
    }

    /// The last state reported, nil when none was.
    public var finalState: AppState? { changes.last?.to }

    /// The state reported before `t` (changes strictly earlier than `t`), nil when none was.
    public func state(before t: UInt64) -> AppState? {
        changes.last { $0.t < t }?.to
    }

    /// The state reported at or before `t`, nil when none was.
    public func state(atOrBefore t: UInt64) -> AppState? {
        changes.last { $0.t <= t }?.to
    }

    /// The first change at or after `t` that satisfies `predicate`.
    public func firstChange(from t: UInt64, where predicate: (TracedStateChange) -> Bool) -> TracedStateChange? {
        changes.first { $0.t >= t && predicate($0) }
    }

    /// The last change into `downloaded`, when it ended there.
    public var completion: TracedStateChange? {
        finalState == .downloaded ? changes.last : nil
    }
}
