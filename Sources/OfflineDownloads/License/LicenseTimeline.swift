import BenchCore
import Foundation

/// When a license stops working, and whether it works now: purchase (never expires),
/// rental (absolute expiry) and dual expiry (a play duration that starts at first
/// playback). Pure; time is passed in.
public struct LicenseTimeline: Sendable, Hashable {
    /// The license's terms, as issued.
    public var kind: LicenseKind
    /// Absolute expiry; nil for a purchase.
    public var expiresAt: Date?
    /// Play duration once playback started; nil when the license has none.
    public var playDuration: TimeInterval?
    /// When playback first started; nil until it does.
    public var firstPlayedAt: Date?
    /// When the license was issued (or last renewed).
    public var issuedAt: Date

    /// The timeline of `license`, first played at `firstPlayedAt`.
    public init(_ license: License, firstPlayedAt: Date? = nil) {
        kind = license.kind
        expiresAt = license.expirationDate
        playDuration = license.playDurationSeconds.map(TimeInterval.init)
        self.firstPlayedAt = firstPlayedAt
        issuedAt = license.issueDate
    }

    /// When the license stops working: `distantFuture` for a purchase; for a rental the
    /// earlier of its expiry and (once played) first playback + play duration.
    public var expiration: Date {
        guard kind == .rental else { return .distantFuture }
        var end = expiresAt ?? .distantFuture
        if let firstPlayedAt, let playDuration { end = min(end, firstPlayedAt.addingTimeInterval(playDuration)) }
        return end
    }

    /// When an automatic renewal is due: `lead` before `expiration`, but never before
    /// half the license's life (from `issuedAt`), so that a lead longer than the
    /// rental cannot renew in a loop; nil for a purchase, which never expires.
    public func renewalDue(lead: Duration) -> Date? {
        guard kind == .rental, expiration != .distantFuture else { return nil }
        let seconds = Double(lead.components.seconds) + Double(lead.components.attoseconds) / 1e18
        let life = max(0, expiration.timeIntervalSince(issuedAt))
        return expiration.addingTimeInterval(-min(seconds, life / 2))
    }

    /// Whether the license lets the video play at `now`.
    public func isValid(at now: Date) -> Bool {
        now < expiration
    }
}
