import BenchCore
import FixtureOrigin

/// A stream `bench record` copied that a chaos scenario may request by its id, beside the
/// fixture videos (`bench chaos --catalog DIR`): what the generator needs to know of it.
public struct ChaosRecordedVideo: Sendable, Hashable {
    /// The id scenarios request it by.
    public var id: String
    /// Whether a download of it needs a license: its playlists name an `skd://` key the
    /// fixture license server answers (`RecordedContent.licenseKeys(of:)`). Such a
    /// download is treated as the protected fixture videos are (it may be a rental, a
    /// background may follow its request, its scenario needs `licenses`).
    public var needsLicense: Bool

    /// Creates the entry.
    public init(id: String, needsLicense: Bool = false) {
        self.id = id
        self.needsLicense = needsLicense
    }

    /// Every stream of `content`, in its order.
    public static func all(in content: RecordedContent) -> [ChaosRecordedVideo] {
        content.streams.map { ChaosRecordedVideo(id: $0.video.id, needsLicense: !content.licenseKeys(of: $0).isEmpty) }
    }

    /// The recorded streams a generated scenario may request (`all(in:)`) without two of
    /// them, or one and a stream of `kept` (those `--video` plays), sharing a media file's
    /// bytes, which the harness could not tell apart on the app's disk; and a line for
    /// each stream left out, saying why.
    static func pool(in content: RecordedContent, besides kept: [String] = []) -> ([ChaosRecordedVideo], [String]) {
        var chosen: [ChaosRecordedVideo] = []
        var lines: [String] = []
        for video in all(in: content) {
            let others = kept.filter { $0 != video.id } + chosen.map(\.id)
            let shared = others.lazy.compactMap { twin in content.sharedMediaFile(video.id, twin).map { (twin, $0.0, $0.1) } }
            if let (twin, path, other) = shared.first {
                lines.append("--catalog: \(video.id) is not requested by the generated scenarios: it holds the same bytes as "
                    + "\(twin) (\(path) and \(other)), and the harness, finding files on the app's disk by content, could not "
                    + "tell the two downloads apart")
                continue
            }
            chosen.append(video)
        }
        return (chosen, lines)
    }
}

extension ChaosPlan {
    /// The videos a download may name, in a seeded order: the fixture catalog's, and the
    /// `recorded` streams', the first recorded one in that order moved to the front, so
    /// that the scenario's first request (every scenario makes at least two) is of a
    /// recorded stream. With nothing recorded, the fixture videos' seeded order alone.
    static func shuffledPool(_ rng: inout SeededGenerator, recorded: [ChaosRecordedVideo]) -> [String] {
        var pool = rng.shuffled(ChaosCatalog.videos + recorded.map(\.id))
        let ids = Set(recorded.map(\.id))
        if let first = pool.firstIndex(where: ids.contains) { pool.insert(pool.remove(at: first), at: 0) }
        return pool
    }
}
