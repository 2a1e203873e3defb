import AsyncHTTPClient
import BenchCore
import ControlAPI
import Foundation
import NIOCore
import NIOHTTP1

/// Requests to a control API or through a proxy, with AsyncHTTPClient (a real HTTP client).
struct APIClient {
    let base: String
    var headers: [(String, String)] = []

    struct Answer {
        var status: Int
        var body: [UInt8]
        var json: JSONValue? { try? JSONValue.parse(body) }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func call(_ method: HTTPMethod, _ path: String, _ body: String? = nil) async throws -> Answer {
        try await Self.fetch(method, base + path, body: body, headers: headers)
    }

    /// One request, on a connection of its own (closed after it).
    static func fetch(_ method: HTTPMethod = .GET, _ url: String, body: String? = nil, headers: [(String, String)] = []) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return Answer(status: Int(response.status.code), body: Array(bytes.readableBytesView))
    }

    /// Whether a TCP connect to `address` (`127.0.0.1:PORT`) succeeds, on a thread off the pool.
    static func connects(to address: String) async -> Bool {
        let port = UInt16(address.split(separator: ":").last.map(String.init) ?? "") ?? 0
        return await OffPool.run {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var target = sockaddr_in()
            target.sin_family = sa_family_t(AF_INET)
            target.sin_port = port.bigEndian
            target.sin_addr.s_addr = inet_addr("127.0.0.1")
            return withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
        }
    }
}
