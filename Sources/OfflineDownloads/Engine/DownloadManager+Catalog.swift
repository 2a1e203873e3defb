import BenchCore
import Foundation
import HLSPlaylist

/// Questions about videos: their variants, a size estimate, the offline copy, and which
/// URL a player should use.
extension DownloadManager {
    /// Each variant of `video`'s master playlist (needs the network).
    public func variants(for video: CatalogVideo) async throws(EngineError) -> [Variant] {
        try await master(of: video).variants
    }

    /// The bytes a download of `video` with `parameters` will take: BANDWIDTH × duration
    /// of the variant it would choose, plus its default audio renditions.
    public func estimateDownloadSize(video: CatalogVideo, parameters: DownloadParameters) async throws(EngineError) -> Int64 {
        let master = try await master(of: video)
        let selection: MediaSelection
        do { selection = try VariantSelection.select(from: master, bitrate: parameters.requestedBitrate) } catch {
            throw .notPermitted("\(error)")
        }
        let audio = selection.audio.compactMap { rendition in
            master.variants.first { $0.audio == rendition.groupID && !VariantSelection.hasVideo($0) }?.bandwidth
        }.reduce(0, +)
        return Int64((Double(selection.variant.bandwidth + audio) * video.document.duration / 8).rounded(.up))
    }

    /// The downloaded copy of `token`, for playback; nil for an unknown token.
    public func offlineVideo(_ token: DownloadToken) async -> OfflineVideo? {
        guard let entry = entries[token] else { return nil }
        let directory = packagePath(entry.record.packageDirectory)
        let expiration = await licenseExpiration(token)
        var reason: String?
        if entry.machine.state != .downloaded {
            reason = "the download is \(entry.machine.state), not complete"
        } else if entry.video?.licenseKey != nil {
            if let expiration, expiration <= configuration.now() { reason = "license expired" }
            if expiration == nil { reason = "no license" }
        }
        let subtitles = Dictionary(
            uniqueKeysWithValues: entry.record.selection.subtitleLanguages.map { language in
                (language, URL(fileURLWithPath: directory + "/subs_\(language).m3u8"))
            })
        return OfflineVideo(
            token: token, videoID: entry.record.videoID, displayName: entry.record.displayName,
            playableOffline: reason == nil, unplayableReason: reason,
            masterPlaylist: URL(fileURLWithPath: directory + "/master.m3u8"), subtitles: subtitles,
            licenseExpiration: expiration)
    }

    /// The URL a player should open for `video`: the local master playlist when a
    /// download of it is playable offline, the remote one otherwise.
    public func sourceURL(for video: CatalogVideo) async -> URL? {
        for entry in entries.values where entry.record.videoID == video.document.id {
            if let offline = await offlineVideo(entry.token), offline.playableOffline { return offline.masterPlaylist }
        }
        return video.masterURL
    }

    /// Records the first playback of `token` (it starts a rental's play duration).
    public func playbackStarted(_ token: DownloadToken) async throws(EngineError) {
        guard entries[token] != nil else { throw .unknownToken(token) }
        do { _ = try await index.markFirstPlayback(for: token.rawValue, at: configuration.now()) } catch {
            throw .index("\(error)")
        }
        await armRenewal(token)  // a play duration may bring the expiry forward
    }

    private func master(of video: CatalogVideo) async throws(EngineError) -> MasterPlaylist {
        guard let url = video.masterURL else { throw .noSource(videoID: video.document.id) }
        let path = pathProvider.currentPath
        let choice = InterfaceChoice(path: path, allowsCellular: allowsCellular)
        guard let kind = choice.interface, let interface = path.interface(kind) else {
            throw .offline("reading the master playlist of \(video.document.id)")
        }
        let answer: HTTPAnswer
        do { answer = try await transport.fetch(url, via: interface) } catch { throw .offline("\(error)") }
        guard answer.status == 200 else { throw .notPermitted("the master playlist answered HTTP \(answer.status)") }
        do { return try MasterPlaylist.parse(String(decoding: answer.body, as: UTF8.self)) } catch {
            throw .notPermitted("the master playlist is malformed: \(error)")
        }
    }
}
