import BenchCore
import Foundation

extension CatalogVideo {
    /// Reads the catalog entry at `url` through `path`'s first interface (the whole path
    /// when it has none): what `bench download` does for each VIDEO it is given.
    /// - Throws: `CatalogFetchError` when the answer is not a catalog entry; the
    ///   transport's error when the request fails.
    public static func fetch(_ url: URL, via path: any NetworkPathProvider) async throws -> CatalogVideo {
        let transport = HTTPTransport()
        defer { Task { try? await transport.shutdown() } }
        let answer = try await transport.fetch(url, via: path.currentPath.interfaces.first)
        guard answer.status == 200, let document = try? JSONDecoder().decode(VideoDocument.self, from: Data(answer.body)) else {
            throw CatalogFetchError(url: url, status: answer.status)
        }
        return CatalogVideo(document: document, catalogURL: url)
    }
}

/// The URL did not answer a catalog entry: check that it is `/videos/{id}` of an origin.
public struct CatalogFetchError: Error, Sendable, Hashable, CustomStringConvertible {
    public var url: URL
    public var status: Int

    public var description: String { "\(url) did not answer a catalog entry (HTTP \(status))" }
}
