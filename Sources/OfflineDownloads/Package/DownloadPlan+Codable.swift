import Foundation
import HLSPlaylist

/// A plan is `Codable` so that the engine can keep it beside the package (e.g. as
/// JSON) and, after a relaunch, resume byte-range segments and render the local
/// playlists without fetching a playlist again. `MediaSelection` is not `Codable`
/// itself, so its three parts are written as they are.
extension DownloadPlan: Codable {
    private enum CodingKeys: String, CodingKey {
        case formatVersion, masterURL, master, variant, audio, subtitles, streams, items, skdKey
    }

    /// Reads a plan written by `encode(to:)`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decode(Int.self, forKey: .formatVersion)
        guard version == OfflineDownloads.formatVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .formatVersion, in: c,
                debugDescription: "the plan has format \(version); this engine reads \(OfflineDownloads.formatVersion)")
        }
        self.init(
            masterURL: try c.decode(URL.self, forKey: .masterURL),
            master: try c.decode(MasterPlaylist.self, forKey: .master),
            selection: MediaSelection(
                variant: try c.decode(Variant.self, forKey: .variant),
                audio: try c.decode([Rendition].self, forKey: .audio),
                subtitles: try c.decode([Rendition].self, forKey: .subtitles)),
            streams: try c.decode([Stream].self, forKey: .streams),
            items: try c.decode([Item].self, forKey: .items),
            skdKey: try c.decodeIfPresent(SKDKey.self, forKey: .skdKey))
    }

    /// Writes the plan with `OfflineDownloads.formatVersion`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(OfflineDownloads.formatVersion, forKey: .formatVersion)
        try c.encode(masterURL, forKey: .masterURL)
        try c.encode(master, forKey: .master)
        try c.encode(selection.variant, forKey: .variant)
        try c.encode(selection.audio, forKey: .audio)
        try c.encode(selection.subtitles, forKey: .subtitles)
        try c.encode(streams, forKey: .streams)
        try c.encode(items, forKey: .items)
        try c.encodeIfPresent(skdKey, forKey: .skdKey)
    }
}
