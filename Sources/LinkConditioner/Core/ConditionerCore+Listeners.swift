import BenchCore
import CLibUV

/// The listeners: binding, listening, refusing, and what happens to each new
/// connection (`Admission`, by the interface's state). Loop thread only.
extension ConditionerCore {
    /// Binds the interface's socket; listens when its admission says so.
    func openListener(_ runtime: InterfaceRuntime) throws(LibUVError) {
        let socket = UVTCP(loop: loop, pool: pool)
        let rc = socket.bind(runtime.endpoint)
        if rc != 0 {
            socket.close()
            throw LibUVError(operation: "bind \(runtime.kind) to \(runtime.endpoint)", code: rc)
        }
        if runtime.endpoint.port == 0, let bound = socket.localAddress { runtime.endpoint = bound }
        runtime.listener = socket
        runtime.isListening = false
        if runtime.admission.listens { try startListening(runtime) }
    }

    private func startListening(_ runtime: InterfaceRuntime) throws(LibUVError) {
        guard let listener = runtime.listener, !runtime.isListening else { return }
        listener.onConnection = { [unowned self, unowned runtime] status in
            self.accept(on: runtime, status: status)
        }
        let rc = listener.listen()
        if rc != 0 { throw LibUVError(operation: "listen on \(runtime.endpoint)", code: rc) }
        runtime.isListening = true
    }

    /// Listens or stops listening as the interface's (new) state requires.
    func followAdmission(_ runtime: InterfaceRuntime) {
        if runtime.admission.listens { acceptNewConnections(runtime) } else { refuseNewConnections(runtime) }
    }

    /// Makes new connections to the interface fail with ECONNREFUSED: a bound,
    /// non-listening socket keeps the port and answers SYN with RST. The old socket stops
    /// listening in every process holding it (`closeListener`): an engine or tool spawned
    /// at this instant holds a copy until it execs.
    func refuseNewConnections(_ runtime: InterfaceRuntime) {
        guard runtime.isListening else { return }
        runtime.listener?.closeListener()
        runtime.listener = nil
        runtime.isListening = false
        do { try openListener(runtime) } catch {
            emit(.listenerFailed(interface: runtime.kind, error: "could not rebind: \(error)"))
        }
    }

    /// Listens again after a refusing spell.
    func acceptNewConnections(_ runtime: InterfaceRuntime) {
        do {
            if runtime.listener == nil { try openListener(runtime) } else { try startListening(runtime) }
        } catch {
            emit(.listenerFailed(interface: runtime.kind, error: "could not listen again: \(error)"))
        }
    }

    private func accept(on runtime: InterfaceRuntime, status: Int32) {
        guard status == 0, let listener = runtime.listener, !isStopping else { return }
        let client = UVTCP(loop: loop, pool: pool)
        guard listener.accept(into: client) == 0 else { client.close(); return }
        switch runtime.admission {
        case .acceptAndReset, .refuseInKernel:
            // `.refuseInKernel` cannot get here (nothing listens); a connection the
            // kernel queued before the listener closed is refused like the rest.
            refuse(client, on: runtime)
            return
        case .forward, .hold:
            break
        }
        client.setNoDelay()
        let id = ConnectionID(rawValue: nextConnectionID)
        nextConnectionID += 1
        let connection = ProxyConnection(id: id, interface: runtime.kind, client: client, core: self)
        runtime.connections[id] = connection
        counters[runtime.kind]?.connectionsAccepted += 1
        emit(.connectionAccepted(connection: id, interface: runtime.kind, peer: connection.peer))
        guard openTimers(connection, runtime) else { return }  // reset or closed after a time of zero
        guard runtime.isForwarding else {  // blackholed: held until the interface is up
            connection.holdWhileBlackholed()
            return
        }
        startConnecting(connection, runtime)
    }

    /// A connection to a down (reset or refuse) interface that counts refusals: counted,
    /// reported, and closed at once with RST (the client sees a reset right after
    /// connecting). It never gets a connection id nor reaches the upstream.
    private func refuse(_ client: UVTCP, on runtime: InterfaceRuntime) {
        let peer = client.peerAddress?.description ?? "?"
        counters[runtime.kind]?.connectionsRefused += 1
        emit(.connectionRefused(interface: runtime.kind, peer: peer))
        client.closeWithReset()
    }

    /// Connects upstream now, or after the slow-connect delay.
    func startConnecting(_ connection: ProxyConnection, _ runtime: InterfaceRuntime) {
        // A forward proxy for any host connects once the first request has named where;
        // so does a fixed upstream whose run intercepts hosts (the request may name one).
        if configuration.forwardProxy || configuration.interception != nil, connection.target == nil {
            connection.readRequest()
            return
        }
        if let delay = ConnectionFaultState.slowConnectDelay(link: runtime.setup.link) {
            slowConnects.append((now + delay, connection.id, runtime.kind))
            rearm()
            return
        }
        connectNow(connection, runtime)
    }

    func connectNow(_ connection: ProxyConnection, _ runtime: InterfaceRuntime) {
        // An intercepted connection always names its interface to the intercepting proxy.
        let header = configuration.proxyProtocol || connection.isIntercepted
            ? ProxyProtocolHeader.line(client: connection.client.peerAddress ?? SocketAddress(host: "0.0.0.0", port: 0),
                                       listener: runtime.endpoint)
            : nil
        connection.connectUpstream(to: connection.target ?? configuration.upstream, proxyHeader: header)
    }

    /// A connection whose first request named its upstream, now looked up: connects now
    /// when its interface forwards, else when it is back (`resumeForwarding`).
    func connectIfForwarding(_ connection: ProxyConnection) {
        guard let runtime = interfaces[connection.interface], runtime.isForwarding else { return }
        startConnecting(connection, runtime)
    }
}
