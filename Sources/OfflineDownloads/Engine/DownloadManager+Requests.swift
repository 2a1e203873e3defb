import BenchCore
import Foundation
import HLSPlaylist

/// The app's calls: request, preload, pause, resume, cancel, delete.
extension DownloadManager {
    /// Queues a download of `video` and returns its token. A video whose license was
    /// preloaded returns the preload's token and needs no license parameters.
    /// - Throws: `EngineError.notOfflineEnabled` when the catalog says so.
    public func requestDownload(
        video: CatalogVideo, mediaSelections: MediaSelections = MediaSelections(),
        parameters: DownloadParameters = DownloadParameters()
    ) async throws(EngineError) -> DownloadToken {
        guard video.canBeDownloaded else { throw .notOfflineEnabled(videoID: video.document.id) }
        if let preloaded = entries.values.first(where: {
            $0.record.videoID == video.document.id && $0.machine.state == .licensePreloaded
        }) {
            let token = preloaded.token
            entries[token]?.record.selection.audioLanguages = mediaSelections.audioLanguages
            entries[token]?.record.selection.subtitleLanguages = mediaSelections.subtitleLanguages
            try await feed(token) { machine throws(IllegalTransition) in try machine.downloadRequested(requiresLicense: false) }
            await schedule()
            return token
        }
        let token = try await create(video: video, selections: mediaSelections, parameters: parameters)
        try await feed(token) { machine throws(IllegalTransition) in
            try machine.downloadRequested(requiresLicense: video.licenseKey != nil)
        }
        await schedule()
        return token
    }

    /// Acquires and stores the license of a protected video before its download is
    /// requested; `requestDownload` later returns the same token.
    public func preloadLicense(video: CatalogVideo, parameters: DownloadParameters) async throws(EngineError) -> DownloadToken {
        guard video.canBeDownloaded else { throw .notOfflineEnabled(videoID: video.document.id) }
        guard video.licenseKey != nil else { throw .notPermitted("video \(video.document.id) is not protected; it needs no license") }
        let token = try await create(video: video, selections: MediaSelections(), parameters: parameters)
        do {
            try await acquireLicense(token)
        } catch {
            _ = try? await index.delete(token.rawValue)
            entries[token] = nil
            throw error
        }
        try await feed(token) { machine throws(IllegalTransition) in try machine.licensePreloaded() }
        return token
    }

    /// Pauses a download (`suspended(user)`); a queued one stays queued, paused.
    public func pause(_ token: DownloadToken) async throws(EngineError) {
        try await feed(token) { machine throws(IllegalTransition) in try machine.userPaused() }
        await schedule()
    }

    /// Resumes a paused download; it settles under the current conditions.
    public func resume(_ token: DownloadToken) async throws(EngineError) {
        try await feed(token) { machine throws(IllegalTransition) in try machine.userResumed() }
        await schedule()
    }

    /// Cancels a download in flight: stops it, deletes its partial data and license.
    public func cancel(_ token: DownloadToken) async throws(EngineError) {
        try await feed(token) { machine throws(IllegalTransition) in try machine.cancelRequested() }
        await schedule()
    }

    /// Deletes a downloaded, failed or license-preloaded video: files, license, record.
    /// A download in flight is canceled instead.
    public func delete(_ token: DownloadToken) async throws(EngineError) {
        guard let state = entries[token]?.machine.state else { throw .unknownToken(token) }
        if [.requested, .downloading].contains(state) || state.suspensionReason != nil {
            return try await cancel(token)
        }
        try await feed(token) { machine throws(IllegalTransition) in try machine.deleteRequested() }
    }

    /// A new record and entry for `video`, with its `video.json` written to the package.
    private func create(
        video: CatalogVideo, selections: MediaSelections, parameters: DownloadParameters
    ) async throws(EngineError) -> DownloadToken {
        guard let master = video.masterURL else { throw .noSource(videoID: video.document.id) }
        let token = DownloadToken(UUID().uuidString.lowercased())
        let terms = parameters.licenseTerms
        let stored = StoredParameters(
            licenseKind: terms.kind == .purchase ? .purchase : .rental, rentalDurationSeconds: terms.rentalDurationSeconds,
            playDurationSeconds: terms.playDurationSeconds, requestedBitrate: parameters.requestedBitrate,
            allowsCellular: parameters.allowsCellular ?? allowsCellular, expiresAt: parameters.expiresAt)
        let record = DownloadRecord(
            token: token.rawValue, videoID: video.document.id, masterURL: master.absoluteString,
            displayName: DownloadParameters.fileSafe(parameters.displayName ?? video.document.name), parameters: stored,
            selection: StoredSelection(
                variantURI: "", bandwidth: 0, audioLanguages: selections.audioLanguages,
                subtitleLanguages: selections.subtitleLanguages),
            snapshot: DownloadStateMachine(conditions: .favorable).snapshot, requestedAt: configuration.now(),
            packageDirectory: "packages/\(token.rawValue)")
        do {
            try saveVideo(video, at: packagePath(record.packageDirectory))
            try await index.insert(record)
        } catch {
            throw .index("cannot record the download: \(error)")
        }
        entries[token] = DownloadEntry(
            record: record, video: video, machine: DownloadStateMachine(conditions: conditions(for: record)),
            retry: RetryBackoff(configuration: configuration.retry, generator: random.derived(token.rawValue)))
        if parameters.expiresAt != nil { armExpiry() }
        return token
    }
}
