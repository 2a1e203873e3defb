import BenchCore
import Foundation

/// Time-driven work: evicting downloads whose own expiry passed, and renewing rentals
/// shortly before they expire while the app is in the foreground.
extension DownloadManager {
    // MARK: Download expiry (eviction)

    /// Evicts every download whose `expiresAt` has passed, then sleeps until the next one.
    func evictExpired() async {
        let now = configuration.now()
        let expired = entries.values.compactMap { entry -> (DownloadToken, Date)? in
            guard let expiresAt = entry.record.parameters.expiresAt, expiresAt <= now else { return nil }
            return (entry.token, expiresAt)
        }
        for (token, expiresAt) in expired {
            guard entries[token]?.machine.state != .canceling else { continue }
            await report(token) { machine throws(IllegalTransition) in try machine.expired() }
            if entries[token] == nil { sink.yield(.evicted(token, expiredAt: expiresAt)) }
        }
        if !expired.isEmpty { await schedule() }
        armExpiry()
    }

    /// Sleeps until the earliest `expiresAt` of the downloads, then evicts. Re-armed
    /// whenever a download with an expiry is created.
    func armExpiry() {
        expiryWatcher?.cancel()
        expiryWatcher = nil
        guard let next = entries.values.compactMap(\.record.parameters.expiresAt).min() else { return }
        let delay = max(0, next.timeIntervalSince(configuration.now()))
        expiryWatcher = Task { [weak self] in
            try? await Task.sleep(for: .seconds(delay))
            guard !Task.isCancelled else { return }
            await self?.evictExpired()
        }
    }

    // MARK: Automatic renewal of rentals

    /// Arms the automatic renewal of `token`'s rental (when configured, in the
    /// foreground and not prepared for the background, and the download holds a
    /// rental license): it fires `rentalRenewalLead` before the license expires, or at
    /// once inside that window.
    func armRenewal(_ token: DownloadToken) async {
        dropRenewal(token)
        guard let lead = configuration.rentalRenewalLead, isForeground, !renewalsHeld, entries[token]?.video?.licenseKey != nil,
            let stored = try? await index.license(for: token.rawValue),
            let license = try? JSONDecoder().decode(License.self, from: stored.signedLicense),
            let due = LicenseTimeline(license, firstPlayedAt: stored.firstPlayedAt).renewalDue(lead: lead)
        else { return }
        let delay = max(0, due.timeIntervalSince(configuration.now()))
        entries[token]?.renewalTimer = Task { [weak self] in
            try? await Task.sleep(for: .seconds(delay))
            guard !Task.isCancelled else { return }
            await self?.renewalDue(token)
        }
    }

    func dropRenewal(_ token: DownloadToken) {
        entries[token]?.renewalTimer?.cancel()
        entries[token]?.renewalTimer = nil
    }

    /// The renewal timer fired: renew online; a success arms the next renewal, a
    /// failure (reported as `licenseFailed`) tries again after a quarter of the lead.
    private func renewalDue(_ token: DownloadToken) async {
        entries[token]?.renewalTimer = nil
        guard isForeground, !renewalsHeld, entries[token] != nil else { return }
        let exchange = Task<Bool, Never> {
            do {
                _ = try await renewLicense(token: token)  // arms the next renewal
                return true
            } catch {
                return false
            }
        }
        entries[token]?.renewalExchange = exchange
        let renewed = await exchange.value
        // Only its own: a renewal this one armed at once (due inside the lead) may have
        // begun and recorded its exchange before this resumed, and prepareForBackground()
        // must find that one to wait for it.
        if entries[token]?.renewalExchange == exchange { entries[token]?.renewalExchange = nil }
        if !renewed {
            guard isForeground, !renewalsHeld, let lead = configuration.rentalRenewalLead, entries[token] != nil else { return }
            entries[token]?.renewalTimer = Task { [weak self] in
                try? await Task.sleep(for: lead / 4)
                guard !Task.isCancelled else { return }
                await self?.renewalDue(token)
            }
        }
    }
}
