import BenchCore
import Foundation

/// License exchanges: only in the foreground, persisted before the transfer may fetch
/// an encrypted segment, renewable online.
///
/// One route for a download's license: every caller that needs it (the `acquireLicense`
/// action, a transfer about to fetch its first segment through `licenseWait`,
/// `prepareForBackground`) goes through `startLicense`, which starts the download's one
/// exchange or joins the one under way, and waits, if it waits, for that exchange's
/// outcome. Only the exchange's end (`licenseTask`) turns the outcome into state-machine
/// input; a transfer only learns whether to go on.
extension DownloadManager {
    /// Starts the license exchange of `token` unless one is under way, and returns the
    /// exchange; nil when the download needs no license. The route every caller takes
    /// to a download's license.
    @discardableResult
    func startLicense(_ token: DownloadToken) -> LicenseExchange? {
        guard let entry = entries[token], entry.machine.needsLicense else { return nil }
        if let exchange = entry.license { return exchange }
        let exchange = Task { [weak self] in await self?.licenseTask(token) ?? .failure(.unknownToken(token)) }
        entries[token]?.license = exchange
        return exchange
    }

    /// The exchange a transfer of `token` waits for before its first segment: the
    /// license route's end for transfers, handed to the worker when it starts (nil when
    /// the download holds its license). Without the license the transfer ends with
    /// `TransferFailure.license` and fetches nothing encrypted.
    func licenseWait(_ token: DownloadToken) -> LicenseExchange? {
        guard entries[token]?.machine.needsLicense == true else { return nil }
        let exchange = startLicense(token)
        // Test hook for the harness's misbehaving agent only (see the flag): no waiting.
        if configuration.transferSkipsLicenseGate { return nil }
        return exchange
    }

    /// The exchange and the one place its outcome is fed to the state machine. Returns
    /// the outcome: success when the license is stored, else why not.
    private func licenseTask(_ token: DownloadToken) async -> Result<Void, EngineError> {
        do throws(EngineError) {
            try await acquireLicense(token)
            entries[token]?.license = nil
            entries[token]?.licenseError = nil
            await report(token) { machine throws(IllegalTransition) in try machine.licenseAcquired() }
            return .success(())
        } catch {
            entries[token]?.license = nil
            entries[token]?.licenseError = "\(error)"
            sink.yield(.licenseFailed(token, reason: "\(error)"))
            guard entries[token]?.machine.state != .licensePreloaded else { return .failure(error) }
            if case .license(let reason) = error, reason.hasPrefix(Self.refusedPrefix) {
                await report(token) { machine throws(IllegalTransition) in try machine.permanentFailure(.license(reason)) }
            } else if entries[token]?.machine.state == .downloading {
                // Its transfer waits for this exchange (`licenseWait`) and ends with
                // `TransferFailure.license`, which retries it: one retry, armed by the
                // transfer's report.
                return .failure(error)
            } else {
                entries[token]?.lastError = "\(error)"
                scheduleRetry(
                    token, kind: error.isOffline || error.isLicenseInBackground ? .network : .other, lastError: "\(error)")
            }
            return .failure(error)
        }
    }

    static var refusedPrefix: String { "refused: " }
    /// How a license failure that waits for the foreground begins (`EngineError.isLicenseInBackground`).
    static var backgroundPrefix: String { "in the background: " }

    /// Certificate, license, verification, then the license is stored in the index.
    /// Never sent in the background: the server would refuse it, and the SDK guides
    /// require licenses before the app leaves the foreground.
    func acquireLicense(_ token: DownloadToken, renewal: Bool = false) async throws(EngineError) {
        guard let entry = entries[token], let video = entry.video, let endpoints = video.licenseEndpoints,
            let key = video.licenseKey
        else { throw .license(Self.refusedPrefix + "the video's catalog entry names no license server or key") }
        guard isForeground else { throw .license(Self.backgroundPrefix + "licenses are exchanged in the foreground") }
        let choice = InterfaceChoice(path: pathProvider.currentPath, allowsCellular: entry.record.parameters.allowsCellular)
        guard let kind = choice.interface, let interface = pathProvider.currentPath.interface(kind) else {
            throw .offline("no allowed interface is up to reach the license server")
        }
        entries[token]?.record.licenseRequestedAt = configuration.now()
        await save(token)
        let parameters = entry.record.parameters
        let terms = LicenseTerms(
            kind: parameters.licenseKind == .purchase ? .purchase : .rental,
            rentalDurationSeconds: parameters.rentalDurationSeconds, playDurationSeconds: parameters.playDurationSeconds)
        let license: License
        do {
            license = try await licenseClient.acquire(
                assetID: key.assetID, keyID: key.keyID, terms: terms, at: endpoints, via: interface,
                stillForeground: { [weak self] in await self?.isForeground ?? false })
        } catch {
            // The network let the exchange down (no route, a reset, a captive portal's
            // page instead of the license): nothing is stored, and it is retried as an
            // outage is, never counted as a refusal.
            if case .transport(let transport) = error, transport.isNetwork { throw .offline("\(error)") }
            // Sent to the background mid-exchange (or refused as in the background): the
            // exchange waits for the foreground.
            if case .appInBackground = error { throw .license(Self.backgroundPrefix + "\(error)") }
            throw .license((error.isPermanent ? Self.refusedPrefix : "") + "\(error)")
        }
        let stored = try await store(license, for: token)
        let expiration = LicenseTimeline(license, firstPlayedAt: stored.firstPlayedAt).expiration
        sink.yield(renewal ? .licenseRenewed(token, expiration: expiration) : .licenseAcquired(token, expiration: expiration))
        await armRenewal(token)
    }

    /// Saves `license` in the index and as `license.json` in the package (a renewal
    /// keeps the content key and first playback it replaces). Returns the record.
    @discardableResult
    func store(_ license: License, for token: DownloadToken) async throws(EngineError) -> LicenseRecord {
        let previous = try? await index.license(for: token.rawValue)
        let record = LicenseRecord(
            token: token.rawValue, assetID: license.assetID, keyID: license.keyID,
            contentKey: license.contentKey ?? previous?.contentKey ?? Data(), kind: license.kind == .purchase ? .purchase : .rental,
            issuedAt: license.issueDate, expiresAt: license.expirationDate, playDurationSeconds: license.playDurationSeconds,
            firstPlayedAt: previous?.firstPlayedAt, signedLicense: (try? JSONEncoder().encode(license)) ?? Data())
        do { try await index.saveLicense(record) } catch { throw .index("cannot store the license: \(error)") }
        writeLicenseFile(license, firstPlayedAt: record.firstPlayedAt, for: token)
        return record
    }

    /// Writes `license.json` into the package of `token`; a failure is reported, not
    /// thrown (the index holds the license the engine itself uses). Not once the
    /// download is being cancelled or is gone: an exchange that ends while a cancel
    /// removes the package must not create the package again.
    func writeLicenseFile(_ license: License, firstPlayedAt: Date?, for token: DownloadToken) {
        guard let entry = entries[token], ![.canceling, .notDownloaded].contains(entry.machine.state) else { return }
        let directory = entry.record.packageDirectory
        let file = PackagedLicense(
            license: license, expiration: LicenseTimeline(license, firstPlayedAt: firstPlayedAt).expiration,
            firstPlayedAt: firstPlayedAt)
        do { try file.write(to: packagePath(directory)) } catch {
            sink.yield(.error(token, message: "cannot write \(PackagedLicense.fileName) into the package: \(error)"))
        }
    }

    /// Renews the license of `token` with `video`'s license server and `parameters`'
    /// terms (the server must be reachable and the app in the foreground); returns the
    /// new expiration and reports `licenseRenewed`.
    ///
    /// `video` is the catalog entry as the app has it now: its license server is used,
    /// and kept for later renewals. When `parameters.licenseTerms` are the stored
    /// license's terms, the license is renewed at the renewal endpoint (a new rental
    /// period, same key); other terms (a rental bought outright, another duration)
    /// exchange a new license with them, which replaces the stored one, as the SDKs'
    /// "renew with parameters" calls do.
    /// - Throws: `EngineError.offline` with no usable interface, `.license` when the
    ///   server refuses or the app is in the background, `.notPermitted` when `video`
    ///   is not the download's video.
    public func renewLicense(
        token: DownloadToken, video: CatalogVideo, parameters: DownloadParameters
    ) async throws(EngineError) -> Date {
        guard let entry = entries[token] else { throw .unknownToken(token) }
        guard video.document.id == entry.record.videoID else {
            throw .notPermitted("download \(token) is of video \(entry.record.videoID), not \(video.document.id)")
        }
        guard video.licenseEndpoints != nil, video.licenseKey != nil else {
            throw .notPermitted("video \(video.document.id) is not protected; it has no license to renew")
        }
        entries[token]?.video = video
        try? saveVideo(video, at: packagePath(entry.record.packageDirectory))
        let terms = parameters.licenseTerms
        let current = entry.record.parameters
        let sameTerms = (terms.kind == .purchase) == (current.licenseKind == .purchase)
            && terms.rentalDurationSeconds == current.rentalDurationSeconds
            && terms.playDurationSeconds == current.playDurationSeconds
        if sameTerms { return try await renewLicense(token: token) }
        guard isForeground else { throw .license("licenses are renewed in the foreground") }
        let choice = InterfaceChoice(path: pathProvider.currentPath, allowsCellular: current.allowsCellular)
        guard choice.interface != nil else { throw .offline("renewing a license needs the network") }
        entries[token]?.record.parameters.licenseKind = terms.kind == .purchase ? .purchase : .rental
        entries[token]?.record.parameters.rentalDurationSeconds = terms.rentalDurationSeconds
        entries[token]?.record.parameters.playDurationSeconds = terms.playDurationSeconds
        do { try await acquireLicense(token, renewal: true) } catch {
            entries[token]?.record.parameters = current
            sink.yield(.licenseFailed(token, reason: "\(error)"))
            throw error
        }
        await save(token)
        return await licenseExpiration(token) ?? .distantPast
    }

    /// Renews the license of `token` at the renewal endpoint with its stored terms (the
    /// server must be reachable and the app in the foreground); returns the new
    /// expiration. The short form of `renewLicense(token:video:parameters:)`.
    public func renewLicense(token: DownloadToken) async throws(EngineError) -> Date {
        guard let entry = entries[token], let endpoints = entry.video?.licenseEndpoints else { throw .unknownToken(token) }
        guard let stored = try? await index.license(for: token.rawValue),
            let license = try? JSONDecoder().decode(License.self, from: stored.signedLicense)
        else { throw .license("download \(token) has no license to renew") }
        guard isForeground else { throw .license("licenses are renewed in the foreground") }
        let choice = InterfaceChoice(path: pathProvider.currentPath, allowsCellular: entry.record.parameters.allowsCellular)
        guard let kind = choice.interface, let interface = pathProvider.currentPath.interface(kind) else {
            throw .offline("renewing a license needs the network")
        }
        let renewed: License
        do { renewed = try await licenseClient.renew(license, at: endpoints, via: interface) } catch {
            sink.yield(.licenseFailed(token, reason: "\(error)"))
            throw .license("\(error)")
        }
        let record = try await store(renewed, for: token)
        let expiration = LicenseTimeline(renewed, firstPlayedAt: record.firstPlayedAt).expiration
        sink.yield(.licenseRenewed(token, expiration: expiration))
        await armRenewal(token)
        return expiration
    }

    /// When the license of `token` stops working: `distantFuture` for a purchase or clear
    /// content, nil when a protected download has no license.
    public func licenseExpiration(_ token: DownloadToken) async -> Date? {
        guard let entry = entries[token] else { return nil }
        guard entry.video?.licenseKey != nil else { return .distantFuture }
        guard let stored = try? await index.license(for: token.rawValue),
            let license = try? JSONDecoder().decode(License.self, from: stored.signedLicense)
        else { return nil }
        return LicenseTimeline(license, firstPlayedAt: stored.firstPlayedAt).expiration
    }

    /// Writes the catalog entry beside the package, so that a relaunch knows the license
    /// server and names without the catalog.
    func saveVideo(_ video: CatalogVideo, at directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let stored = StoredVideo(document: video.document, catalogURL: video.catalogURL.absoluteString)
        try JSONEncoder().encode(stored).write(to: URL(fileURLWithPath: directory + "/video.json"), options: .atomic)
    }

    func loadVideo(_ token: DownloadToken) -> CatalogVideo? {
        let path = packagePath("packages/\(token.rawValue)/video.json")
        guard let data = FileManager.default.contents(atPath: path),
            let stored = try? JSONDecoder().decode(StoredVideo.self, from: data), let url = URL(string: stored.catalogURL)
        else { return nil }
        return CatalogVideo(document: stored.document, catalogURL: url)
    }
}

/// `video.json` in a package.
struct StoredVideo: Codable {
    var document: VideoDocument
    var catalogURL: String
}

/// One license exchange of a download (`DownloadManager.startLicense`): success when the
/// license is stored, else why not. Everyone who needs the download's license awaits it.
typealias LicenseExchange = Task<Result<Void, EngineError>, Never>
