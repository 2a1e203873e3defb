import DeadzoneKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a request did not give what was asked.
enum FetchError: Error, CustomStringConvertible {
    /// Refused, reset, stalled, cut short, a 5xx, a captive portal: retry later.
    case network(String)
    /// A status retrying cannot change (4xx), with its body.
    case status(Int, Data)
    /// The engine aborted it (pause, cancel, the interface went away).
    case aborted

    var description: String {
        switch self {
        case .network(let why): "network: \(why)"
        case .status(let status, _): "HTTP \(status)"
        case .aborted: "aborted"
        }
    }
}

/// What a request got: the head, and the body when it was kept in memory.
struct Fetched {
    var response: HTTPURLResponse
    var body: Data
}

/// Every HTTP request of the app, through URLSession, over the interface it is allowed to
/// use. A session per interface: on Apple platforms its `connectionProxyDictionary` sends
/// every request through the interface's listener as a proxy; swift-corelibs-foundation
/// (Linux) ignores that dictionary, so there each request's URL is the interface's
/// listener (`NetworkInterface.routed`), which forwards to the origin by path.
// @unchecked: `sessions` is read and written only under `lock`.
final class HTTPClient: @unchecked Sendable {
    /// A read that gets no byte for this long is given up (a stall).
    static let stallSeconds: TimeInterval = 4
    private let lock = NSLock()
    private var sessions: [String: (session: URLSession, delegate: SessionDelegate)] = [:]

    private func session(for interface: NetworkInterface) -> (session: URLSession, delegate: SessionDelegate) {
        lock.withLock {
            let key = "\(interface.kind.rawValue)@\(interface.host):\(interface.port)"
            if let existing = sessions[key] { return existing }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.httpShouldSetCookies = false
            configuration.httpMaximumConnectionsPerHost = 64
            configuration.timeoutIntervalForRequest = 60
            #if canImport(Darwin)
            configuration.connectionProxyDictionary = interface.proxyDictionary
            configuration.waitsForConnectivity = false
            #endif
            let delegate = SessionDelegate()
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
            sessions[key] = (session, delegate)
            return (session, delegate)
        }
    }

    /// The URL a request for `url` goes to over `interface`.
    static func target(_ url: URL, over interface: NetworkInterface) -> URL {
        #if canImport(Darwin)
        return url  // the session's proxy settings route it
        #else
        return interface.routed(url)
        #endif
    }

    /// Sends one request over `attempt`'s interface and waits for its whole response.
    /// Throws `.network` for what a retry may fix, `.status` for a 4xx, `.aborted` when
    /// the attempt was aborted. A 416 is returned (the caller knows what it asked).
    func fetch(
        _ url: URL, over attempt: Attempt, method: String = "GET", body: Data? = nil, headers: [String: String] = [:],
        into destination: BodyDestination = .memory, onBytes: @escaping @Sendable (Int) -> Void
    ) throws(FetchError) -> Fetched {
        var request = URLRequest(url: Self.target(url, over: attempt.interface))
        request.httpMethod = method
        request.httpBody = body
        request.cachePolicy = .reloadIgnoringLocalCacheData
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        let what = "\(method) \(url.path) via \(attempt.interface.kind.rawValue)"

        let transfer = Transfer(destination: destination, onBytes: onBytes)
        guard attempt.begin(transfer) else { throw .aborted }
        defer { attempt.end(transfer) }
        let (session, delegate) = session(for: attempt.interface)
        let task = session.dataTask(with: request)
        transfer.attach(task)
        delegate.register(transfer, for: task)
        task.resume()
        let outcome = transfer.wait(stall: Self.stallSeconds)
        switch outcome {
        case .stopped:
            delegate.forget(task)
            throw attempt.aborted ? .aborted : .network("\(what): cut")
        case .stalled:
            transfer.stop()
            delegate.forget(task)
            throw .network("\(what): no byte for \(Int(Self.stallSeconds)) s")
        case .completed:
            break
        }
        if let error = transfer.error { throw .network("\(what): \(error.localizedDescription)") }
        guard let response = transfer.response else { throw .network("\(what): no response") }
        if Responses.isPortal(response) {
            throw .network("\(what): a captive portal answered (HTTP \(response.statusCode))")
        }
        let status = response.statusCode
        if status >= 500 || status == 408 || status == 429 { throw .network("\(what): HTTP \(status)") }
        if (200..<300).contains(status), response.expectedContentLength >= 0, Int64(transfer.received) != response.expectedContentLength {
            throw .network("\(what): the body ended after \(transfer.received) of \(response.expectedContentLength) bytes")
        }
        if status == 416 || (200..<300).contains(status) { return Fetched(response: response, body: transfer.body) }
        if (400..<500).contains(status) { throw .status(status, transfer.body) }
        throw .network("\(what): HTTP \(status)")
    }
}

/// The session's delegate: hands each task's head, body and end to its `Transfer`.
// @unchecked: `transfers` is read and written only under `lock`; each `Transfer` is thread-safe.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var transfers: [Int: Transfer] = [:]

    func register(_ transfer: Transfer, for task: URLSessionTask) {
        lock.withLock { transfers[task.taskIdentifier] = transfer }
    }

    func forget(_ task: URLSessionTask) { lock.withLock { transfers[task.taskIdentifier] = nil } }

    private func transfer(_ task: URLSessionTask) -> Transfer? { lock.withLock { transfers[task.taskIdentifier] } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let http = response as? HTTPURLResponse { transfer(dataTask)?.accept(http) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(dataTask)?.receive(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = transfer(task)
        forget(task)
        transfer?.complete(error)
    }

    /// No redirect is followed: a portal's redirect is a portal.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
