import FixtureOrigin
import Foundation
import OfflineDownloads

/// A real fixture origin on loopback with small segments, and an engine transport, for
/// one test; both are stopped afterwards.
func withOriginAndTransport<T>(
    stallTimeout: Duration = .seconds(60),
    _ configure: (inout OriginConfiguration) -> Void = { _ in },
    _ body: (OriginServer, HTTPTransport) async throws -> T
) async throws -> T {
    var configuration = OriginConfiguration(catalog: CatalogConfiguration(sizeScale: 0.05, largeVideoDuration: 60), threads: 1)
    configure(&configuration)
    let server = try await OriginServer.start(configuration: configuration)
    let transport = HTTPTransport(configuration: TransportConfiguration(stallTimeout: stallTimeout))
    do {
        let result = try await body(server, transport)
        try await transport.shutdown()
        try await server.stop()
        return result
    } catch {
        try? await transport.shutdown()
        try? await server.stop()
        throw error
    }
}

extension OriginServer {
    /// `http://127.0.0.1:{port}{path}`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }
}

/// A fresh directory under the system's temporary directory.
struct ScratchDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "deadzone-engine-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
