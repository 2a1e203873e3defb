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

    /// The bytes a download of `video` with `parameters` and `mediaSelections` will take,
    /// file by file: the length where it is known — an EXT-X-BYTERANGE length, or the
    /// size of the same file already stored (or its length learnt) by a download of
    /// this video — else the stream's BANDWIDTH × the segment's duration
    /// (`DownloadPlan.estimatedBytes(knownLengths:)`). Reads the master and media
    /// playlists (needs the network).
    public func estimateDownloadSize(
        video: CatalogVideo, mediaSelections: MediaSelections = MediaSelections(), parameters: DownloadParameters
    ) async throws(EngineError) -> Int64 {
        guard let url = video.masterURL else { throw .noSource(videoID: video.document.id) }
        let interface = try usableInterface("estimating the size of \(video.document.id)")
        let planner = OfflinePlanner(
            transport: transport, interface: interface, token: "estimate", masterURL: url.absoluteString,
            requestedBitrate: parameters.requestedBitrate, audioLanguages: mediaSelections.audioLanguages,
            subtitleLanguages: mediaSelections.subtitleLanguages)
        let planned: OfflinePlanner.Planned
        do { planned = try await planner.plan() } catch {
            throw .notPermitted("cannot plan a download of \(video.document.id): \(error)")
        }
        var known: [URL: Int64] = [:]
        for entry in entries.values where entry.record.videoID == video.document.id {
            for segment in (try? await index.segments(for: entry.token.rawValue)) ?? [] {
                guard let length = segment.expectedLength, let remote = URL(string: segment.uri) else { continue }
                known[remote] = length
            }
        }
        return planned.plan.estimatedBytes(knownLengths: known)
    }

    /// The downloaded copy of `token`, for playback; nil for an unknown token.
    ///
    /// While the download is in progress the local playlists are written anew with the
    /// stored prefix of each stream (the segments whose files are in place, up to the
    /// first gap), so that a player opening `masterPlaylist` plays what is stored;
    /// `playableOffline` stays false until the download is complete.
    ///
    /// A complete download is checked against the disk at every call: a file of its
    /// package that is missing or shorter than recorded (`missingFiles`) makes it
    /// unplayable, "package incomplete: N files missing". It stays `downloaded`.
    public func offlineVideo(_ token: DownloadToken) async -> OfflineVideo? {
        guard entries[token] != nil else { return nil }
        if entries[token]?.machine.state != .downloaded { await writeStoredPrefix(token) }
        guard let entry = entries[token] else { return nil }
        let directory = packagePath(entry.record.packageDirectory)
        let expiration = await licenseExpiration(token)
        let artwork = PackageArtwork.read(from: directory)
        let lostArtwork = Set(artwork?.missingFiles(in: directory) ?? [])
        var images: [PackageArtwork.Kind: URL] = [:]
        for file in artwork?.files ?? [] where file.bytes != nil && !lostArtwork.contains(file.localPath) {
            images[file.kind] = URL(fileURLWithPath: directory + "/" + file.localPath)
        }
        let missing = entry.machine.state == .downloaded ? await missingFiles(token) : []
        var reason: String?
        if entry.machine.state != .downloaded {
            reason = "the download is \(entry.machine.state), not complete"
        } else if !missing.isEmpty {
            let named = missing.prefix(3).joined(separator: ", ") + (missing.count > 3 ? ", …" : "")
            reason = "package incomplete: \(missing.count) file\(missing.count == 1 ? "" : "s") missing (\(named)); "
                + "delete the download and request it again"
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
            licenseExpiration: expiration, poster: images[.poster], thumbnail: images[.thumbnail])
    }

    /// The files a complete package of `token` must hold that are missing from its
    /// directory or shorter than recorded: media files (from the index, checked as
    /// `PackageFiles.reconcile` checks them), the local playlists (`master.m3u8` and
    /// one per stream), and the images recorded stored (`PackageArtwork`).
    func missingFiles(_ token: DownloadToken) async -> [String] {
        guard let entry = entries[token] else { return [] }
        let files = PackageFiles(directory: packagePath(entry.record.packageDirectory))
        let segments = (try? await index.segments(for: token.rawValue)) ?? []
        let streams = Set(segments.map(\.stream)).subtracting([DownloadPlan.keyStream]).sorted()
        let playlists = [OfflinePackage.masterPlaylistPath] + streams.map(DownloadPlan.localPlaylistPath(ofStream:))
        let lostPlaylists = playlists.filter { PackageFiles.fileSize(files.directory + "/" + $0) == nil }
        let lostArtwork = PackageArtwork.read(from: files.directory)?.missingFiles(in: files.directory) ?? []
        return files.missingFiles(segments: segments) + lostPlaylists + lostArtwork
    }

    /// The URL a player should open for `video`: the local master playlist when a
    /// download of it is playable offline, the remote one otherwise.
    public func sourceURL(for video: CatalogVideo) async -> URL? {
        for entry in entries.values where entry.record.videoID == video.document.id {
            if let offline = await offlineVideo(entry.token), offline.playableOffline { return offline.masterPlaylist }
        }
        return video.masterURL
    }

    /// Records the first playback of `token`, which starts a rental's play duration
    /// (dual expiry): `licenseExpiration` is then the earlier of the rental's end and
    /// this instant plus the play duration. Later calls change nothing. The app calls it
    /// when its player starts playing the offline copy.
    /// - Throws: `EngineError.unknownToken`; `.index` when the download has no license.
    public func playbackStarted(_ token: DownloadToken) async throws(EngineError) {
        guard entries[token] != nil else { throw .unknownToken(token) }
        let first: Date
        do { first = try await index.markFirstPlayback(for: token.rawValue, at: configuration.now()) } catch {
            throw .index("\(error)")
        }
        if let stored = try? await index.license(for: token.rawValue),
            let license = try? JSONDecoder().decode(License.self, from: stored.signedLicense)
        {
            writeLicenseFile(license, firstPlayedAt: first, for: token)
        }
        await armRenewal(token)  // a play duration may bring the expiry forward
    }

    /// Writes the local playlists of `token` listing the stored prefix of each stream
    /// (files in place on disk, whatever the batched index says yet). Nothing when the
    /// download has no plan yet, or once it is complete: the complete playlists are
    /// written on the actor before `downloaded`, so this cannot overwrite them.
    func writeStoredPrefix(_ token: DownloadToken) async {
        guard let entry = entries[token] else { return }
        let files = PackageFiles(directory: packagePath(entry.record.packageDirectory))
        guard let data = FileManager.default.contents(atPath: files.directory + "/" + DownloadPlan.packageFileName),
            let plan = try? JSONDecoder().decode(DownloadPlan.self, from: data),
            let segments = try? await index.segments(for: token.rawValue), !segments.isEmpty
        else { return }
        let stored = files.reconcile(segments: segments)
        guard let state = entries[token]?.machine.state, ![.downloaded, .canceling, .notDownloaded].contains(state) else { return }
        do { try OfflinePackage(plan: plan, segments: stored).write(to: URL(fileURLWithPath: files.directory)) } catch {
            sink.yield(.error(token, message: "cannot write the partial playlists: \(error)"))
        }
    }

    /// The interface requests made for the app (not for a download) go over.
    private func usableInterface(_ what: String) throws(EngineError) -> PathInterface {
        let path = pathProvider.currentPath
        let choice = InterfaceChoice(path: path, allowsCellular: allowsCellular)
        guard let kind = choice.interface, let interface = path.interface(kind) else { throw .offline(what) }
        return interface
    }

    private func master(of video: CatalogVideo) async throws(EngineError) -> MasterPlaylist {
        guard let url = video.masterURL else { throw .noSource(videoID: video.document.id) }
        let interface = try usableInterface("reading the master playlist of \(video.document.id)")
        let answer: HTTPAnswer
        do { answer = try await transport.fetch(url, via: interface) } catch { throw .offline("\(error)") }
        guard answer.status == 200 else { throw .notPermitted("the master playlist answered HTTP \(answer.status)") }
        if let portal = CaptivePortal.checkPlaylist(answer.body, for: "GET \(url.path)") { throw .offline("\(portal)") }
        do { return try MasterPlaylist.parse(String(decoding: answer.body, as: UTF8.self)) } catch {
            throw .notPermitted("the master playlist is malformed: \(error)")
        }
    }
}
