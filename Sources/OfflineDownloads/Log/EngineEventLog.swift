/// The engine's events as `bench download` prints them: one line per state change and
/// license event, and one per 10 % of each stream's progress. A value the printing task
/// owns; it only remembers the last decile shown per stream.
public struct EngineEventLog: Sendable {
    private var reported: [String: Int] = [:]

    public init() {}

    /// The line for `event`, or nil when it is not shown (segments stored, progress
    /// within a decile already shown).
    public mutating func line(for event: EngineEvent) -> String? {
        switch event {
        case .stateChanged(let token, let from, let to): return "\(token) \(from) -> \(to)"
        case .progress(let token, let selection, let fraction):
            let decile = Int(fraction * 10)
            guard decile > reported[selection, default: -1] else { return nil }
            reported[selection] = decile
            return "\(token) \(selection) \(decile * 10)%"
        case .licenseAcquired(let token, let expiration): return "\(token) license acquired, expires \(expiration)"
        case .licenseRenewed(let token, let expiration): return "\(token) license renewed, expires \(expiration)"
        case .licenseFailed(let token, let reason): return "\(token) license failed: \(reason)"
        case .evicted(let token, let expiredAt): return "\(token) evicted: its download expired at \(expiredAt)"
        case .error(let token, let message): return "\(token.map(\.rawValue) ?? "engine") error: \(message)"
        default: return nil
        }
    }
}
