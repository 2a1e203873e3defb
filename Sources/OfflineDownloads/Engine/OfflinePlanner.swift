import BenchCore
import Foundation
import HLSPlaylist

/// The network half of planning a download: fetches the master playlist and the media
/// playlists of the chosen streams over the transfer's interface, then lets
/// `DownloadPlan` (pure) decide the files.
struct OfflinePlanner: Sendable {
    let transport: HTTPTransport
    let interface: PathInterface
    let token: String
    let masterURL: String
    let requestedBitrate: Int?
    let audioLanguages: [String]
    let subtitleLanguages: [String]

    /// A planner for the download `record`.
    init(transport: HTTPTransport, interface: PathInterface, record: DownloadRecord) {
        self.init(
            transport: transport, interface: interface, token: record.token, masterURL: record.masterURL,
            requestedBitrate: record.parameters.requestedBitrate, audioLanguages: record.selection.audioLanguages,
            subtitleLanguages: record.selection.subtitleLanguages)
    }

    /// A planner for a download not (yet) requested, e.g. for a size estimate.
    init(
        transport: HTTPTransport, interface: PathInterface, token: String, masterURL: String, requestedBitrate: Int?,
        audioLanguages: [String], subtitleLanguages: [String]
    ) {
        self.transport = transport
        self.interface = interface
        self.token = token
        self.masterURL = masterURL
        self.requestedBitrate = requestedBitrate
        self.audioLanguages = audioLanguages
        self.subtitleLanguages = subtitleLanguages
    }

    /// A plan ready to store.
    struct Planned {
        var plan: DownloadPlan
        var segments: [SegmentRecord]
        var selection: StoredSelection
        var bytesExpected: Int64

        /// Writes the local playlists (and nothing else) into the package directory,
        /// listing the stored prefix of `stored` (see `OfflinePackage(plan:segments:)`).
        func writeLocalPlaylists(into directory: String, stored: [SegmentRecord]) throws {
            try OfflinePackage(plan: plan, segments: stored).write(to: URL(fileURLWithPath: directory))
        }
    }

    func plan() async throws(TransferFailure) -> Planned {
        guard let masterURL = URL(string: masterURL) else { throw .playlist("the master URL \(self.masterURL) is invalid") }
        let master: MasterPlaylist
        do { master = try MasterPlaylist.parse(try await text(masterURL)) } catch let error as TransferFailure {
            throw error
        } catch {
            throw .playlist("the master playlist is malformed: \(error)")
        }
        let selection: MediaSelection
        do {
            selection = try VariantSelection.select(
                from: master, bitrate: requestedBitrate, audioLanguages: audioLanguages,
                subtitleLanguages: subtitleLanguages)
        } catch {
            throw .playlist("\(error)")
        }
        var playlists: [URL: MediaPlaylist] = [:]
        let sources: [DownloadPlan.StreamSource]
        do { sources = try DownloadPlan.sources(masterURL: masterURL, selection: selection) } catch {
            throw .playlist("\(error)")
        }
        for source in sources {
            do { playlists[source.playlistURL] = try MediaPlaylist.parse(try await text(source.playlistURL)) } catch let error as TransferFailure {
                throw error
            } catch {
                throw .playlist("the \(source.name) playlist is malformed: \(error)")
            }
        }
        let plan: DownloadPlan
        do { plan = try DownloadPlan(masterURL: masterURL, master: master, selection: selection, mediaPlaylists: playlists) } catch {
            throw .playlist("\(error)")
        }
        let stored = StoredSelection(
            variantURI: selection.variant.uri, bandwidth: selection.variant.bandwidth,
            audioLanguages: selection.audio.compactMap(\.language), subtitleLanguages: selection.subtitles.compactMap(\.language))
        return Planned(
            plan: plan, segments: plan.segmentRecords(token: token), selection: stored,
            bytesExpected: plan.estimatedBytes(knownLengths: [:]))
    }

    /// A playlist's text; HTTP errors become transport failures (404 is permanent), and
    /// an answer that is not a playlist at all (no `#EXTM3U`: a captive portal's page,
    /// whatever its Content-Type) the network failure `.captivePortal`.
    private func text(_ url: URL) async throws(TransferFailure) -> String {
        let answer: HTTPAnswer
        do { answer = try await transport.fetch(url, via: interface) } catch { throw .transport(error) }
        guard answer.status == 200 else {
            throw .transport(.status(answer.status, retryAfter: answer.headers.first(name: "Retry-After").flatMap { Int($0) }))
        }
        if let portal = CaptivePortal.checkPlaylist(answer.body, for: "GET \(url.path)") { throw .transport(portal) }
        return String(decoding: answer.body, as: UTF8.self)
    }
}
