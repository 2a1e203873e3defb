import Foundation

extension TransferWorker {
    /// Stores the package's poster and thumbnail (`PackageArtwork`) over the transfer's
    /// interface, after the segments, and records each outcome in `artwork.json`.
    ///
    /// Every run looks again: an image recorded stored whose file is gone or cut short
    /// is fetched again, and one renamed into place by a process that died before
    /// `artwork.json` said so is taken as stored (a final file only appears by the
    /// rename after its fsync). An image the origin refuses for good (`isPermanent`:
    /// 404, 410, …) is recorded absent and not asked for again: the images are
    /// optional, a video plays without them. Any other failure ends the run as a
    /// segment's would (network: suspend and retry; 5xx: bounded retries).
    func fetchArtwork() async throws(TransferFailure) {
        guard var artwork = PackageArtwork.read(from: files.directory) ?? self.artwork else { return }
        for position in artwork.files.indices {
            let file = artwork.files[position]
            guard file.absent == nil else { continue }
            let size = PackageFiles.fileSize(files.directory + "/" + file.localPath)
            if let size, size >= (file.bytes ?? 0) {
                guard file.bytes == nil else { continue }
                artwork.files[position].bytes = size
            } else {
                switch try await fetchImage(file) {
                case .stored(let bytes): artwork.files[position].bytes = bytes
                case .absent(let why):
                    artwork.files[position].bytes = nil
                    artwork.files[position].absent = why
                }
            }
            do { try artwork.write(to: files.directory) } catch {
                throw .transport(.storage("cannot write \(PackageArtwork.fileName): \(error)", noSpace: false))
            }
        }
    }

    private enum ImageOutcome {
        case stored(bytes: Int64)
        case absent(String)
    }

    /// One image into its `.part` file, then committed (synced and renamed).
    private func fetchImage(_ file: PackageArtwork.File) async throws(TransferFailure) -> ImageOutcome {
        let part: String
        do { part = try files.prepare(localPath: file.localPath) } catch {
            throw .transport(.storage("\(error)", noSpace: error.isDiskFull))
        }
        do {
            _ = try await transport.download(file.remoteURL, via: interface, to: part, resumeAt: 0, etag: nil) { _ in }
        } catch {
            guard error.isPermanent else { throw .transport(error) }
            try? FileManager.default.removeItem(atPath: part)
            return .absent("\(error)")
        }
        do { return .stored(bytes: try files.commit(localPath: file.localPath)) } catch {
            throw .transport(.storage("\(error)", noSpace: error.isDiskFull))
        }
    }
}
