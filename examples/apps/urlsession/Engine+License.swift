import DeadzoneKit
import Foundation

/// A refusal of the license server: `{"code", "message"}`.
private struct LicenseRefusal: Decodable {
    var code: String?
    var message: String?
}

extension Engine {
    /// The license exchange of a protected video, in the foreground only: `GET
    /// certificate_url`, then `POST license_url` with `{"asset_id", "key_id", "nonce",
    /// "terms"}`. `app_in_background` (403) means "ask again in the foreground": retried.
    /// The license is in the index before it is claimed.
    func acquireLicense(_ token: String, _ attempt: Attempt) throws {
        let record: DownloadRecord = try lock.withLock {
            guard mayExchangeLicense, let record = records[token] else { throw Aborted() }  // the worker waits in awaitingForeground
            runtime[token]?.licensing = true
            return record
        }
        defer {
            lock.withLock {
                runtime[token]?.licensing = false
                lock.broadcast()
            }
        }
        guard let system = record.licenseSystem else { return }
        let bytes = onBytes(token, attempt)
        _ = try client.fetch(system.certificateURL, over: attempt, onBytes: bytes)
        try goOn(token, attempt)
        // Sent to the background while the certificate was on its way: no license request
        // in the background; the worker takes the exchange up again in the foreground.
        try lock.withLock { guard mayExchangeLicense else { throw Aborted() } }
        let nonce = UUID().uuidString
        var terms: [String: Any] = ["kind": "purchase"]
        if let rental = record.request.rentalSeconds { terms = ["kind": "rental", "rental_duration_seconds": rental] }
        let body = try JSONSerialization.data(withJSONObject: ["asset_id": system.assetID, "key_id": system.keyID, "nonce": nonce, "terms": terms])
        let answer: Data
        switch Result(catching: { () throws(FetchError) -> Data in
            try client.fetch(system.licenseURL, over: attempt, method: "POST", body: body, onBytes: bytes).body
        }) {
        case .success(let data):
            answer = data
        case .failure(let error):
            guard case .status(let status, let data) = error else { throw error }
            let refusal = try? JSONDecoder().decode(LicenseRefusal.self, from: data)
            if refusal?.code == "app_in_background" { throw FetchError.network("the license server refuses in the background") }
            report { try events.licenseFailed(token, reason: refusal?.message ?? "HTTP \(status)") }
            throw Refused("license refused (\(refusal?.code ?? String(status)))")
        }
        guard let license = try? JSONDecoder().decode(License.self, from: answer) else { throw Refused("the license cannot be read") }
        guard license.assetID == system.assetID, license.keyID == system.keyID, license.nonce == nonce else {
            throw Refused("the license answers another request")
        }
        guard Data(base64Encoded: license.contentKey)?.count == 16 else { throw Refused("the license carries no 16-byte content key") }
        try lock.withLock {
            guard var current = records[token], current.state.isInFlight else { throw Aborted() }
            current.license = license
            records[token] = current
            try store.save(current)
            let expiration = license.expiresAt.map { Date(timeIntervalSince1970: $0) } ?? Self.farFuture
            report { try events.licenseAcquired(token, expiration: expiration) }
        }
    }
}
