import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// Fetches resources for the recorder: a GET over HTTP or HTTPS, redirects followed here
/// (so that each is recorded), the body streamed to a file while it is hashed.
final class RecordFetcher: Sendable {
    /// A body fetched into a file.
    struct Fetched: Sendable {
        var finalURL: URL
        var contentType: String
        var size: Int64
        var sha256: String
        var redirects: [(status: Int, location: String)]
    }

    private let client: HTTPClient
    private static let maximumRedirects = 10

    /// A fetcher trusting the system's CAs and, when given, the CA certificates in the
    /// PEM file `caFile` (a private CA's).
    init(caFile: String?) throws(RecordError) {
        var settings = HTTPClient.Configuration()
        settings.redirectConfiguration = .disallow
        settings.decompression = .disabled
        settings.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(15), read: .seconds(60))
        // A refused connection or a certificate that is not trusted fails at once, not
        // after AsyncHTTPClient's own retries have used the connect timeout.
        settings.connectionPool.retryConnectionEstablishment = false
        if let caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw .badArguments("--ca \(caFile): no readable file there; give the PEM file of the CA that signed the "
                    + "origin's certificate")
            }
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(caFile)]
            settings.tlsConfiguration = tls
        }
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
    }

    /// Closes every connection; call once.
    func shutdown() async {
        try? await client.shutdown()
    }

    /// GETs `url` into `path` (through `path.part`, renamed when whole), following
    /// redirects. `namedBy` is said in a status error ("named by URL line N").
    func fetch(_ url: URL, into path: String, namedBy: String?) async throws(RecordError) -> Fetched {
        var current = url
        var redirects: [(status: Int, location: String)] = []
        while true {
            let response: HTTPClientResponse
            do {
                response = try await client.execute(HTTPClientRequest(url: current.absoluteString), timeout: .seconds(120))
            } catch {
                throw .fetch(url: current.absoluteString, reason: Self.explain(error))
            }
            let status = Int(response.status.code)
            if [301, 302, 303, 307, 308].contains(status) {
                guard let location = response.headers.first(name: "Location"),
                    let next = URL(string: location, relativeTo: current)?.absoluteURL
                else {
                    throw .redirect(url: current.absoluteString, reason: "answered \(status) with no usable Location")
                }
                redirects.append((status, next.absoluteString))
                guard redirects.count <= Self.maximumRedirects else {
                    throw .redirect(url: url.absoluteString, reason: "more than \(Self.maximumRedirects) redirects")
                }
                current = next
                continue
            }
            guard (200..<300).contains(status) else {
                throw .status(url: current.absoluteString, status: status, namedBy: namedBy)
            }
            let expected = response.headers.first(name: "Content-Length").flatMap { Int64($0) }
            let (size, digest) = try await write(response.body, to: path, url: current)
            if let expected, expected != size {
                throw .truncated(url: current.absoluteString, received: size, expected: expected)
            }
            do {
                if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
                try FileManager.default.moveItem(atPath: path + ".part", toPath: path)
            } catch {
                throw .storage(path: path, reason: "cannot be written (\(error.localizedDescription))")
            }
            return Fetched(
                finalURL: current, contentType: response.headers.first(name: "Content-Type") ?? "", size: size,
                sha256: digest, redirects: redirects)
        }
    }

    /// Streams `body` into `path.part`, hashing it; returns its size and SHA-256.
    private func write(
        _ body: HTTPClientResponse.Body, to path: String, url: URL
    ) async throws(RecordError) -> (Int64, String) {
        let part = path + ".part"
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        } catch {
            throw .storage(path: path, reason: "its directory cannot be made (\(error.localizedDescription))")
        }
        guard FileManager.default.createFile(atPath: part, contents: nil), let handle = FileHandle(forWritingAtPath: part)
        else {
            throw .storage(path: part, reason: "cannot be created")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            for try await chunk in body {
                let bytes = Data(chunk.readableBytesView)
                hasher.update(data: bytes)
                try handle.write(contentsOf: bytes)
                size += Int64(bytes.count)
            }
        } catch let error as CocoaError {
            throw .storage(path: part, reason: "cannot be written (\(error.localizedDescription))")
        } catch {
            throw .fetch(url: url.absoluteString, reason: "the body broke off after \(size) bytes (\(Self.explain(error)))")
        }
        return (size, CatalogPaths.hex(hasher.finalize()))
    }

    /// An HTTP client error in words, with what to do for an untrusted certificate.
    static func explain(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed")
            || text.contains("unable to get local issuer") || text.contains("self signed") || text.contains("self-signed")
        {
            return "the server's certificate is not trusted (\(text)); pass --ca FILE with the PEM certificate of the CA "
                + "that signed it"
        }
        if let http = error as? HTTPClientError {
            if http == .connectTimeout { return "no connection within 15 s" }
            if http == .readTimeout { return "no data for 60 s" }
            if http == .deadlineExceeded { return "the request took over 120 s" }
        }
        return text
    }
}
