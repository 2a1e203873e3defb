import AppProtocol
import BenchCore
import Foundation
import OfflineDownloads

/// The commands: each performed on the engine, then answered.
extension AgentRuntime {
    /// Performs `request` and writes its reply: the value, or the engine's refusal in words.
    func answer(_ request: AppRequest) async {
        do {
            output.reply(id: request.id, value: try await perform(request.command))
            writeOfflineClaims(after: request.command)
        } catch {
            output.reply(id: request.id, error: error.description)
        }
    }

    /// Performs `command` on the engine (as the misbehaviour bends it) and returns the
    /// reply's value. `hello` and `shutdown` are the command loop's, and answer `.done` here.
    func perform(_ command: AppCommand) async throws(EngineError) -> AppReplyValue {
        switch command {
        case .setPath(let path):
            let wasOffline = memory.withLock { $0.toldOffline }
            probe?.pathChanged(path)
            feed.update(engineView(of: path))
            await engine.applyCurrentPath()
            if options.misbehavior == .unpauseOnPathReturn, wasOffline, !path.interfaces.isEmpty {
                let resumed = await AgentMisbehavior.resumePaused(in: engine)
                AgentLog.write("unpause-on-path-return: resumed \(resumed) paused downloads")
            }
        case .setForeground(let foreground):
            await engine.setForeground(foreground)
        case .prepareForBackground:
            // backgroundBeforeLicense, fakeLicense: the bad app goes to the background at once.
            if options.misbehavior == .backgroundBeforeLicense || options.misbehavior == .fakeLicense {
                return .unfinished([:])
            }
            let unfinished = await engine.prepareForBackground()
            return .unfinished(Dictionary(uniqueKeysWithValues: unfinished.map { ($0.key.rawValue, $0.value) }))
        case .setAllowsCellular(let allowed):
            await engine.setAllowsCellular(allowed)
        case .request(let request):
            let token = try await requestDownload(request).rawValue
            if options.misbehavior == .bypassConditioner { prefetchAroundThePath(request) }
            if options.misbehavior == .cellularSettingPerBatch {
                await applyToTheBatch(allowsCellular: request.allowsCellular, from: DownloadToken(token))
            }
            if options.misbehavior == .fakeLicense,
                CatalogVideo(document: request.video, catalogURL: URL(fileURLWithPath: "/")).licenseKey != nil
            {
                // The bad app says it holds the license the engine has not even asked for.
                output.event(.licenseAcquired(download: token, expiration: .distantFuture))
            }
            return .download(token)
        case .pause(let download):
            if options.misbehavior == .pauseOnlyTheList {
                pauseOnlyTheList(download)
                return .done
            }
            try await engine.pause(DownloadToken(download))
        case .resume(let download):
            if options.misbehavior == .downloadingOnOfflineResume { claimDownloadingIfOffline(download) }
            try await engine.resume(DownloadToken(download))
        case .cancel(let download):
            try await engine.cancel(DownloadToken(download))
        case .delete(let download):
            try await engine.delete(DownloadToken(download))
        case .inspect(let download):
            return .inspection(await inspector.inspect(download, in: engine))
        case .hello, .shutdown:
            break
        }
        return .done
    }

    /// Asks the engine for the download `request` describes.
    private func requestDownload(_ request: AppDownloadRequest) async throws(EngineError) -> DownloadToken {
        guard let catalogURL = URL(string: request.catalogURL), catalogURL.scheme != nil else {
            throw .notPermitted(
                "catalogURL \(request.catalogURL) is not an absolute URL: send the URL the entry was read from")
        }
        let terms = request.rentalSeconds.map { LicenseTerms(kind: .rental, rentalDurationSeconds: Int64($0)) }
        return try await engine.requestDownload(
            video: CatalogVideo(document: request.video, catalogURL: catalogURL),
            mediaSelections: MediaSelections(
                audioLanguages: request.audioLanguages, subtitleLanguages: request.subtitleLanguages),
            parameters: DownloadParameters(licenseTerms: terms ?? .purchase, allowsCellular: request.allowsCellular))
    }
}

extension AgentRuntime {
    /// `bypassConditioner`: GETs each source's master playlist straight from its URL,
    /// not through any interface of the path, and ignores the outcome.
    func prefetchAroundThePath(_ request: AppDownloadRequest) {
        let urls = request.video.sources.compactMap { URL(string: $0.url, relativeTo: URL(string: request.catalogURL)) }
        Task {
            var configuration = TransportConfiguration()
            configuration.trustedCAFile = options.caFile
            let transport = HTTPTransport(configuration: configuration)
            for url in urls { _ = try? await transport.fetch(url.absoluteURL, via: nil) }
            try? await transport.shutdown()
        }
    }
}
