import BenchCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `AgentMisbehavior.hammerRefusedPort`'s rule, pure: when to start and stop probing,
/// and which endpoints. It remembers the endpoints of the last path that had
/// interfaces; a path with none starts probing them, a path with some stops it.
struct ReachabilityProbeRule: Equatable {
    /// What the driver must do after a path change.
    enum Action: Equatable {
        /// Probe these endpoints (`host:port`) until told to stop.
        case start([String])
        case stop
        case none
    }

    /// The endpoints of the last path with interfaces, WiFi first.
    private(set) var knownEndpoints: [String] = []
    private(set) var isProbing = false

    /// The action for the app's new path.
    mutating func pathChanged(_ path: NetworkPath) -> Action {
        if path.interfaces.isEmpty {
            guard !isProbing, !knownEndpoints.isEmpty else { return .none }
            isProbing = true
            return .start(knownEndpoints)
        }
        knownEndpoints = path.interfaces.map(\.endpoint)
        guard isProbing else { return .none }
        isProbing = false
        return .stop
    }
}

/// The bad app's reachability probe (`hammer-refused-port`): while its path has no
/// interface, a thread of its own opens a raw TCP connection to each last known
/// endpoint every `interval` and closes it at once, however the connect ends (refused,
/// reset, accepted): a retry storm with no backoff. Fed by the `setPath` command;
/// any thread may call it. The thread ends when the path returns or at `stop()`.
final class AgentReachabilityProbe: Sendable {
    private struct State {
        var rule = ReachabilityProbeRule()
        /// Bumped at every start and stop: a probing thread runs while it is its own.
        var generation = 0
    }

    private let state = Mutex(State())
    let interval: Duration

    init(interval: Duration = .milliseconds(20)) {
        self.interval = interval
    }

    /// The app was given `path`: starts or stops probing as the rule says.
    func pathChanged(_ path: NetworkPath) {
        let (action, generation) = state.withLock { state in
            let action = state.rule.pathChanged(path)
            if action != .none { state.generation += 1 }
            return (action, state.generation)
        }
        guard case .start(let endpoints) = action else { return }
        AgentLog.write("hammer-refused-port: the path has no interface; probing \(endpoints) every \(interval)")
        Thread { [self] in probe(endpoints, generation: generation) }.start()
    }

    /// Stops any probing (at shutdown).
    func stop() {
        state.withLock { $0.generation += 1 }
    }

    private func probe(_ endpoints: [String], generation: Int) {
        var attempts = 0
        let pause = useconds_t(clamping: max(1, interval.nanoseconds / 1000))
        while state.withLock({ $0.generation == generation }) {
            for endpoint in endpoints {
                Self.connectOnce(to: endpoint)
                attempts += 1
            }
            usleep(pause)
        }
        AgentLog.write("hammer-refused-port: \(attempts) connection attempts to \(endpoints) while the path had no interface")
    }

    /// One blocking connect to an IPv4 `host:port`, then close; the outcome is ignored.
    static func connectOnce(to endpoint: String) {
        guard let colon = endpoint.lastIndex(of: ":"), let port = UInt16(endpoint[endpoint.index(after: colon)...])
        else { return }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, String(endpoint[..<colon]), &address.sin_addr) == 1 else { return }
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return }
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        close(fd)
    }
}
