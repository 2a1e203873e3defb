import CLibUV
#if canImport(Glibc)
import Glibc
#endif

/// Host names to addresses on the loop: `uv_getaddrinfo` looks them up on libuv's
/// thread pool and calls back on the loop thread, so the loop never blocks on DNS.
/// Loop thread only.
enum UVResolver {
    /// The address of `host` (a name, or a numeric address, at once) and `port`, IPv4
    /// preferred; or why it has none (libuv's error name).
    static func resolve(
        _ host: String, port: UInt16, loop: UnsafeMutablePointer<uv_loop_t>,
        completion: @escaping (Result<SocketAddress, ResolveFailure>) -> Void
    ) {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let numeric = SocketAddress(parsing: "[\(bare)]:\(port)") ?? SocketAddress(parsing: "\(bare):\(port)") {
            completion(.success(numeric))
            return
        }
        let request = UnsafeMutablePointer<uv_getaddrinfo_t>.allocate(capacity: 1)
        let context = Unmanaged.passRetained(Lookup(port: port, completion: completion))
        request.pointee.data = context.toOpaque()
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        let started = uv_getaddrinfo(loop, request, { request, status, results in
            guard let request else { return }
            let lookup = Unmanaged<Lookup>.fromOpaque(request.pointee.data).takeRetainedValue()
            defer {
                uv_freeaddrinfo(results)
                request.deallocate()
            }
            guard status == 0, let results else {
                lookup.completion(.failure(ResolveFailure(error: uvErrorName(status))))
                return
            }
            lookup.completion(Self.first(in: results, port: lookup.port).map { .success($0) }
                ?? .failure(ResolveFailure(error: "no IPv4 or IPv6 address")))
        }, bare, nil, &hints)
        if started != 0 {
            context.release()
            request.deallocate()
            completion(.failure(ResolveFailure(error: uvErrorName(started))))
        }
    }

    /// Why a name has no address.
    struct ResolveFailure: Error {
        var error: String
    }

    /// The completion and port of a lookup under way, retained until libuv calls back.
    private final class Lookup {
        let port: UInt16
        let completion: (Result<SocketAddress, ResolveFailure>) -> Void

        init(port: UInt16, completion: @escaping (Result<SocketAddress, ResolveFailure>) -> Void) {
            self.port = port
            self.completion = completion
        }
    }

    /// The first IPv4 address of the list, else its first IPv6 one, with `port`.
    private static func first(in list: UnsafeMutablePointer<addrinfo>, port: UInt16) -> SocketAddress? {
        var addresses: [SocketAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = list
        while let current = node {
            if let address = current.pointee.ai_addr, current.pointee.ai_addrlen <= MemoryLayout<sockaddr_storage>.size {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { destination in
                    destination.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen)))
                }
                if var found = SocketAddress(storage: storage) {
                    found.port = port
                    addresses.append(found)
                }
            }
            node = current.pointee.ai_next
        }
        return addresses.first { !$0.host.contains(":") } ?? addresses.first
    }
}
