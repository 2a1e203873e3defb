import BenchCore
import Foundation

/// The catalog images stored with a package: the video's poster and thumbnail
/// (`VideoDocument.poster`, `.thumbnail`), as `poster.<ext>` and `thumbnail.<ext>` at
/// the top of the package directory (`png` unless the remote name says otherwise).
///
/// A value. The engine makes it from the catalog entry when a transfer starts; the
/// transfer (`TransferWorker`) fetches each image over the transfer's interface after
/// the segments, records how it ended in `artwork.json` (this value, written again
/// after each image), and the download is `downloaded` only once every image is stored
/// or known absent. `offlineVideo` reads it back to name the local files and to check
/// that the stored ones are still on disk.
///
/// The images are optional: an image the origin refuses for good (404, 410, another
/// 4xx but 408 and 429, or an answer that makes no sense) is recorded `absent` and the
/// download completes without it. A passing failure (the network, 5xx, 429) fails the
/// transfer like a segment's would, so it is retried with the same backoff.
public struct PackageArtwork: Sendable, Hashable, Codable {
    /// Which image.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        case poster
        case thumbnail

        /// The raw value, e.g. `poster`.
        public var description: String { rawValue }
    }

    /// One image: where it comes from, where it goes, and how it ended.
    public struct File: Sendable, Hashable, Codable {
        /// Poster or thumbnail.
        public var kind: Kind
        /// The absolute remote URL (the catalog's path resolved against the catalog URL).
        public var remoteURL: URL
        /// The path in the package directory, e.g. `poster.png`.
        public var localPath: String
        /// The stored file's size; nil until it is stored.
        public var bytes: Int64?
        /// Why the origin does not have it (e.g. `HTTP 404`): then it is not stored
        /// and the package is complete without it.
        public var absent: String?

        /// Stored, or known absent: nothing left to fetch.
        public var isSettled: Bool { bytes != nil || absent != nil }
    }

    /// The file's name in the package directory.
    public static let fileName = "artwork.json"

    /// The images, poster first.
    public var files: [File]

    /// The images of `video`'s catalog entry, none stored yet. An empty path, or one
    /// that does not resolve to an `http(s)` URL, is left out.
    public init(video: CatalogVideo) {
        let paths: [(Kind, String)] = [(.poster, video.document.poster), (.thumbnail, video.document.thumbnail)]
        files = paths.compactMap { kind, path in
            guard !path.isEmpty, let url = URL(string: path, relativeTo: video.catalogURL)?.absoluteURL,
                let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else { return nil }
            return File(
                kind: kind, remoteURL: url, localPath: "\(kind).\(PlanBuilder.fileExtension(url, default: "png"))")
        }
    }

    /// The image of `kind`, if the catalog names one.
    public subscript(kind: Kind) -> File? {
        files.first { $0.kind == kind }
    }

    /// Reads `artwork.json` from the package `directory`; nil when there is none (no
    /// transfer reached the images yet, or a package made before they were stored)
    /// or it cannot be read.
    public static func read(from directory: String) -> PackageArtwork? {
        guard let data = FileManager.default.contents(atPath: directory + "/" + fileName) else { return nil }
        return try? JSONDecoder().decode(PackageArtwork.self, from: data)
    }

    /// Writes `artwork.json` into the package `directory`, atomically.
    public func write(to directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: directory + "/" + Self.fileName), options: .atomic)
    }

    /// The local paths of the images recorded stored whose file is missing from
    /// `directory` or shorter than recorded.
    public func missingFiles(in directory: String) -> [String] {
        files.compactMap { file in
            guard let bytes = file.bytes else { return nil }
            let size = PackageFiles.fileSize(directory + "/" + file.localPath)
            return size.map { $0 >= bytes } == true ? nil : file.localPath
        }
    }
}
