import BenchCore
import Synchronization

/// Where the engine learns which interfaces are up: the operating system's network path
/// (an `NWPathMonitor` on Apple platforms). The bench feeds it; a plain deployment uses
/// `DirectNetworkPath`.
///
/// An interface's `endpoint` stands for binding a socket to it: a request sent "over
/// WiFi" connects to the WiFi interface's endpoint (`host:port`) instead of the URL's
/// authority. An empty endpoint means "connect to the URL itself".
public protocol NetworkPathProvider: Sendable {
    /// The path now.
    var currentPath: NetworkPath { get }
    /// Every later path, in order, until the provider finishes. Each call is a new stream.
    func updates() -> AsyncStream<NetworkPath>
}

/// One WiFi interface that is always up and connects straight to each URL: the path of
/// a deployment that does not model interfaces.
public struct DirectNetworkPath: NetworkPathProvider {
    /// The direct path.
    public init() {}

    public var currentPath: NetworkPath {
        NetworkPath(interfaces: [PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "")])
    }

    public func updates() -> AsyncStream<NetworkPath> {
        AsyncStream { $0.finish() }
    }
}

/// A path that whoever owns it sets: the bench's agent feeds it the paths the harness
/// publishes, tests set it directly. Thread-safe; every subscriber gets every update.
public final class NetworkPathFeed: NetworkPathProvider {
    private struct State {
        var path: NetworkPath
        var subscribers: [Int: AsyncStream<NetworkPath>.Continuation] = [:]
        var next = 0
    }

    private let state: Mutex<State>

    /// A feed that starts at `path`.
    public init(_ path: NetworkPath) {
        state = Mutex(State(path: path))
    }

    public var currentPath: NetworkPath {
        state.withLock { $0.path }
    }

    /// Publishes `path` to every subscriber.
    public func update(_ path: NetworkPath) {
        let subscribers = state.withLock { state in
            state.path = path
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(path) }
    }

    public func updates() -> AsyncStream<NetworkPath> {
        let (stream, continuation) = AsyncStream.makeStream(of: NetworkPath.self, bufferingPolicy: .bufferingNewest(16))
        let id = state.withLock { state in
            state.next += 1
            state.subscribers[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every subscriber's stream.
    public func finish() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
