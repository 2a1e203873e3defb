import BenchCore
import CLibUV

/// A client connection accepted on one interface and its upstream twin.
///
/// Owned by `ConditionerCore` on the loop thread. Bytes read from one side are
/// handed to the interface's link chain; the core calls `deliver` when the link
/// and the connection faults release them. The connection never drops data
/// silently: bytes are delivered, discarded with an event (reset, close, removal),
/// or still pending in the link.
///
/// Over 500 lines on purpose: the first-request reading (CONNECT tunnels, a forward proxy
/// for any host, interception) works the same private state as the pipes (the stage, the
/// bytes held while blackholed, what goes upstream first), and an extension in another
/// file would need all of it made internal to the module.
final class ProxyConnection {
    enum Stage: Equatable {
        /// Accepted; waiting for slow connect or for a blackholed interface to come back.
        case held
        case connecting
        case open
        case closed
    }

    let id: ConnectionID
    let interface: InterfaceKind
    let client: UVTCP
    private(set) var upstream: UVTCP?
    let acceptedAt: UInt64
    let peer: String
    private(set) var stage: Stage = .held
    var stats = ConnectionStats()
    var uplink = Pipe(direction: .uplink)
    var downlink = Pipe(direction: .downlink)
    /// Reading is paused by backpressure (not by a blackhole).
    private(set) var pausedByBackpressure: Set<Direction> = []
    /// What the app sent while its interface was blackholed, in order: delivered once
    /// the interface forwards again (as TCP would retransmit it), unless the app gives
    /// the connection up first.
    private var heldFromApp: [Chunk] = []
    private var heldFromAppBytes = 0
    /// Reading the app's side into `heldFromApp` (its interface blackholed).
    private var watchingHeldApp = false
    /// Which of the app's reads begin a message (`appSent`): the first request after the
    /// connection is accepted or bytes are delivered to the app, a TLS handshake not one.
    private var messages = AppMessageWatch()
    /// Reads the start of what the app sends until it tells a CONNECT request from
    /// anything else (`ConnectSniffer`); nil once it has.
    private var sniffer: ConnectSniffer?
    /// The app's reads held while the sniffer is undecided, forwarded as read unless they
    /// were a CONNECT request's head.
    private var sniffed: [Chunk] = []
    /// A forward proxy for any host: the upstream the first request named, once looked up.
    private(set) var target: SocketAddress?
    /// A forward proxy for any host: the first request is being read (no target yet).
    private var readingRequest = false
    /// A forward proxy for any host: the first request has been read.
    private var requestRead = false
    /// What the first request asked for, answered once the upstream is open: a tunnel to
    /// `host:port` (answered 200), or a request forwarded to it.
    private var asked: (target: String, tunnel: Bool, intercepted: Bool)?
    /// The first request named a host the run intercepts (`ConditionerConfiguration.interception`):
    /// the connection goes to the intercepting proxy, with a PROXY line naming the interface.
    var isIntercepted: Bool { asked?.intercepted ?? false }
    /// What goes upstream first once it is open: a forwarded request's rewritten head and
    /// what followed it, or a tunnel's first bytes.
    private var firstUp: [ChunkSlice] = []
    private unowned let core: ConditionerCore

    init(id: ConnectionID, interface: InterfaceKind, client: UVTCP, core: ConditionerCore) {
        self.id = id
        self.interface = interface
        self.client = client
        self.core = core
        self.acceptedAt = core.now
        self.peer = client.peerAddress?.description ?? "?"
        let configuration = core.configuration
        sniffer = ConnectSniffer(mode: configuration.forwardProxy
            ? .anyHost : configuration.interception == nil ? .upstreamFixed : .upstreamFixedIntercepting)
    }

    subscript(direction: Direction) -> Pipe {
        get { direction == .downlink ? downlink : uplink }
        // In place: a get/set pair would copy the pipe on every mutation.
        _modify {
            if direction == .downlink { yield &downlink } else { yield &uplink }
        }
    }

    private func source(_ direction: Direction) -> UVTCP? { direction == .downlink ? upstream : client }
    private func destination(_ direction: Direction) -> UVTCP? { direction == .downlink ? client : upstream }

    // MARK: - Opening

    /// Connects upstream (after any slow-connect delay the core applied).
    func connectUpstream(to address: SocketAddress, proxyHeader: [UInt8]?) {
        guard stage == .held else { return }
        stage = .connecting
        let upstream = UVTCP(loop: core.loop, pool: core.pool)
        self.upstream = upstream
        let started = core.now
        upstream.connect(to: address) { [weak self] status in
            guard let self, self.stage == .connecting else { return }
            if status != 0 {
                self.core.emit(.upstreamFailed(connection: self.id, interface: self.interface, error: uvErrorName(status)))
                self.core.counters[self.interface]?.upstreamFailures += 1
                if let asked = self.asked {
                    self.answerAndClose("502 Bad Gateway", "could not connect to \(asked.target) (\(address)): \(uvErrorName(status))")
                } else {
                    self.reset(reason: "upstream connect failed: \(uvErrorName(status))")
                }
                return
            }
            self.stage = .open
            upstream.setNoDelay()
            self.core.emit(.upstreamConnected(connection: self.id, interface: self.interface,
                                              connectMilliseconds: Double(self.core.now - started) / 1e6))
            if let proxyHeader {
                upstream.write([ChunkSlice(copying: proxyHeader, pool: self.core.pool)]) { _ in }
            }
            self.wireReads()
            self.sendFirstRequest()
            self.resumeReading()
        }
    }

    private func wireReads() {
        for direction in Direction.allCases {
            // The app's side, read while blackholed, is rewired by `releaseHeldApp`.
            if direction == .uplink, watchingHeldApp { continue }
            guard let source = source(direction) else { continue }
            source.onRead = { [weak self] chunk in self?.didRead(chunk, direction) }
            source.onReadEnd = { [weak self] error in self?.didEnd(direction, error: error) }
        }
    }

    // MARK: - Reading

    private func didRead(_ chunk: Chunk, _ direction: Direction) {
        if direction == .uplink {
            noteAppRead(chunk.whole.bytes)
            if sniffer != nil { return sniff(chunk) }
        } else {
            messages.serverRead(chunk.whole.bytes)
        }
        forward(chunk.whole, direction)
    }

    /// Hands bytes of `direction` to the link.
    private func forward(_ slice: ChunkSlice, _ direction: Direction) {
        let wasDrained = isDrained(direction)
        self[direction].bytesArrived(now: core.now, wasDrained: wasDrained)
        core.submit(SliceRun(slice), from: self, direction: direction)
        applyBackpressure(direction)
    }

    // MARK: - CONNECT tunnels

    /// Feeds the sniffer one of the app's first reads, and forwards, tunnels or refuses
    /// once it has decided.
    private func sniff(_ chunk: Chunk) {
        guard var sniffer else { return }
        let outcome = sniffer.feed(chunk.whole.bytes)
        self.sniffer = outcome == .undecided ? sniffer : nil
        switch outcome {
        case .undecided:
            sniffed.append(chunk)
        case .passThrough:
            let held = sniffed + [chunk]
            sniffed = []
            for read in held where stage == .open { forward(read.whole, .uplink) }
        case let .tunnel(target, headBytes):
            sniffed = []
            openTunnel(to: target, rest: ChunkSlice(chunk: chunk, offset: headBytes, count: chunk.length - headBytes))
        case .malformed(let why):
            sniffed = []
            answerAndClose("400 Bad Request", why)
        case .request:
            // Only a sniffer for any host reads whole requests, and it reads them before
            // the upstream is open (`sniffRequest`), never here.
            sniffed = []
            answerAndClose("500 Internal Server Error", "a request read as a forward proxy's on a fixed upstream")
        }
    }

    /// The app asked to tunnel to `target`: when that is the upstream this interface
    /// reaches, it is answered `200` through the link (delayed, shaped and faulted like
    /// any byte the upstream sends), and from then on the connection carries the tunnel's
    /// bytes as any other (`rest`: the first of them). Anything else is refused with 403.
    private func openTunnel(to target: String, rest: ChunkSlice) {
        let upstream = core.configuration.upstream
        guard let asked = SocketAddress(parsing: target), asked == upstream else {
            answerAndClose("403 Forbidden", "this proxy (the \(interface.rawValue) interface of Deadzone's conditioner) "
                + "reaches only \(upstream), not \(target)")
            return
        }
        answerTunnel(to: target)
        tunnelBegins(rest)
        if rest.count > 0 { forward(rest, .uplink) }
    }

    /// What the app sends from a CONNECT head's end on is the tunnel's own stream
    /// (`AppMessageWatch`); `first`: its bytes read with the head, if any.
    private func tunnelBegins(_ first: ChunkSlice?) {
        messages.tunnelOpened()
        guard let first, first.count > 0 else { return }
        noteAppRead(first.bytes)
    }

    /// A tunnel to `target` is open: recorded, and answered 200 through the link.
    private func answerTunnel(to target: String) {
        core.emit(.tunnelOpened(connection: id, interface: interface, target: target))
        forward(ChunkSlice(copying: Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8), pool: core.pool), .downlink)
    }

    /// Answers the app's request with `status` (and `why` as its body) and closes the
    /// connection: nothing of it reaches the upstream.
    private func answerAndClose(_ status: String, _ why: String) {
        let body = why + "\n"
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        client.write([ChunkSlice(copying: Array(response.utf8.prefix(BufferPool.bufferSize)), pool: core.pool)]) { _ in }
        finish(reason: "a request refused (\(status)): \(why)")
    }

    // MARK: - A forward proxy for any host

    /// Reads the app's first request, which names the upstream (the core calls it instead
    /// of connecting, `ConditionerConfiguration.forwardProxy`): first what was held while
    /// the interface was blackholed, then from the socket.
    func readRequest() {
        guard stage == .held, target == nil, !requestRead, !readingRequest else { return }
        readingRequest = true
        let held = heldFromApp
        heldFromApp = []
        heldFromAppBytes = 0
        watchingHeldApp = false
        client.stopReading()
        client.onRead = { [weak self] chunk in
            self?.noteAppRead(chunk.whole.bytes)
            self?.sniffRequest(chunk)
        }
        client.onReadEnd = { [weak self] error in
            guard let self else { return }
            if let error {
                self.reset(reason: "the app reset it before its first request was read (\(uvErrorName(error)))")
            } else {
                self.finish(reason: "closed by the app before its first request was read")
            }
        }
        for chunk in held where readingRequest { sniffRequest(chunk) }
        if readingRequest { client.startReading() }
    }

    /// Feeds the first request's sniffer; once it is read, looks its host up.
    private func sniffRequest(_ chunk: Chunk) {
        guard readingRequest, var sniffer else { return }
        let outcome = sniffer.feed(chunk.whole.bytes)
        self.sniffer = outcome == .undecided ? sniffer : nil
        func rest(after head: Int) -> [ChunkSlice] {
            head < chunk.length ? [ChunkSlice(chunk: chunk, offset: head, count: chunk.length - head)] : []
        }
        let fixed = !core.configuration.forwardProxy
        let soFar = sniffed + [chunk]
        switch outcome {
        case .undecided:
            sniffed.append(chunk)
            return
        case .passThrough:
            // A fixed upstream with interception: not a request for an intercepted host.
            firstUp = soFar.map(\.whole)
        case let .tunnel(target, headBytes):
            let intercepted = intercepts(target)
            if fixed, !intercepted {
                guard let named = SocketAddress(parsing: target), named == core.configuration.upstream else {
                    sniffed = []
                    answerAndClose("403 Forbidden", "this proxy (the \(interface.rawValue) interface of Deadzone's "
                        + "conditioner) reaches only \(core.configuration.upstream) and the hosts the run intercepts, not \(target)")
                    return
                }
            }
            asked = (target, true, intercepted)
            firstUp = (intercepted ? [ChunkSlice(copying: sniffer.head, pool: core.pool)] : []) + rest(after: headBytes)
            tunnelBegins(rest(after: headBytes).first)
        case let .request(target, head, headBytes):
            let intercepted = intercepts(target)
            if fixed, !intercepted {
                firstUp = soFar.map(\.whole)  // the origin answers an absolute form as its path
            } else {
                asked = (target, false, intercepted)
                firstUp = [ChunkSlice(copying: intercepted ? sniffer.head : head, pool: core.pool)] + rest(after: headBytes)
            }
        case .malformed(let why):
            answerAndClose("400 Bad Request", why)
            return
        }
        // The rest waits in the kernel until the upstream is open.
        readingRequest = false
        requestRead = true
        client.stopReading()
        sniffed = []
        if let interception = core.configuration.interception, isIntercepted {
            target = interception.proxy
            core.connectIfForwarding(self)
        } else if fixed {
            target = core.configuration.upstream
            core.connectIfForwarding(self)
        } else {
            lookUp()
        }
    }

    /// Whether `target` (`host:port`) is a host the run intercepts.
    private func intercepts(_ target: String) -> Bool {
        guard let rules = core.configuration.interception?.rules, let (host, port) = ConnectSniffer.authority(target) else {
            return false
        }
        return rules.intercepts(host: host, port: port)
    }

    /// Looks up the host the first request named; connects when the interface forwards.
    private func lookUp() {
        guard let asked, let (host, port) = ConnectSniffer.authority(asked.target) else { return }
        UVResolver.resolve(host, port: port, loop: core.loop) { [weak self] result in
            guard let self, self.stage == .held else { return }
            switch result {
            case .success(let address):
                self.target = address
                self.core.connectIfForwarding(self)
            case .failure(let failure):
                self.answerAndClose("502 Bad Gateway", "could not look up \(host): \(failure.error)")
            }
        }
    }

    /// The upstream is open: a tunnel is answered 200 through the link, and what the
    /// first request left for the upstream goes first: also what a fixed upstream with
    /// interception was sent that named no host (a TLS handshake or an origin-form
    /// request to the origin, held while the sniffer read it), which once waited here for
    /// ever (an `--https --intercept` run's fixture videos timed out their handshakes).
    private func sendFirstRequest() {
        if let asked {
            if asked.intercepted {
                // The intercepting proxy answers the request itself (a CONNECT's 200 included).
                core.emit(.requestIntercepted(connection: id, interface: interface, target: asked.target))
            } else if asked.tunnel {
                answerTunnel(to: asked.target)
            } else {
                core.emit(.requestForwarded(connection: id, interface: interface, target: asked.target))
            }
        }
        let first = firstUp
        firstUp = []
        for slice in first { forward(slice, .uplink) }
    }

    /// Nothing of `direction` is waiting in the link or being written.
    func isDrained(_ direction: Direction) -> Bool {
        self[direction].bytesInWrite == 0 && self[direction].bytesInLink == 0
    }

    private func didEnd(_ direction: Direction, error: Int32?) {
        if let error {
            let side = direction == .downlink ? "upstream" : "client"
            reset(reason: "\(side) read error: \(uvErrorName(error))")
            return
        }
        self[direction].sourceEnded = true
        finishIfDrained(direction)
    }

    /// Stops reading a direction whose backlog reached its share of the interface's queue limit.
    func applyBackpressure(_ direction: Direction) {
        guard let source = source(direction), source.isReading else { return }
        if core.isOverLimit(self, direction) {
            source.stopReading()
            pausedByBackpressure.insert(direction)
        }
    }

    /// Resumes reading where backpressure paused it and the backlog has drained enough.
    func relieveBackpressure(_ direction: Direction) {
        guard pausedByBackpressure.contains(direction), core.isUnderResumeMark(self, direction) else { return }
        pausedByBackpressure.remove(direction)
        if core.isForwarding(interface) { source(direction)?.startReading() }
    }

    func pauseReading() {
        client.stopReading()
        upstream?.stopReading()
    }

    /// The interface is blackholed: nothing moves either way, but the app's side is
    /// still read, into `heldFromApp` (bounded by `heldFromAppLimit`), so that an app
    /// that gives the connection up (closes or resets its socket) is seen doing so when
    /// it does: the connection ends then, with that reason. Without this the app's
    /// close would sit unread until the interface came back, and its retries would look
    /// like new connections beside live ones.
    func holdWhileBlackholed() {
        upstream?.stopReading()
        // An app that already ended its side (a half-close) has nothing more to say: its
        // EOF must not be taken for giving the connection up.
        guard stage != .closed, !watchingHeldApp, !uplink.sourceEnded else { return }
        // A first request still being read is read on, from what is held, when the interface is back.
        if !requestRead { readingRequest = false }
        watchingHeldApp = true
        client.stopReading()
        client.onRead = { [weak self] chunk in self?.didReadWhileHeld(chunk) }
        client.onReadEnd = { [weak self] error in self?.appEndedWhileHeld(error: error) }
        if heldFromAppBytes < Self.heldFromAppLimit { client.startReading() }
    }

    /// At most this much of what the app sends while blackholed is read and held; past
    /// it the app's side is not read (its kernel buffers the rest, as before).
    static let heldFromAppLimit = 256 * 1024

    /// Stamps the start of what the app sends (`appSent`) at the read, before the link
    /// delays it: the evidence of when the app asked, whenever the origin sees it.
    private func noteAppRead(_ bytes: UnsafeRawBufferPointer) {
        guard messages.appRead(bytes) else { return }
        core.emit(.appSent(connection: id, interface: interface, bytes: bytes.count))
    }

    private func didReadWhileHeld(_ chunk: Chunk) {
        noteAppRead(chunk.whole.bytes)
        heldFromApp.append(chunk)
        heldFromAppBytes += chunk.whole.count
        if heldFromAppBytes >= Self.heldFromAppLimit { client.stopReading() }
    }

    private func appEndedWhileHeld(error: Int32?) {
        if let error {
            reset(reason: "the app reset it while its interface was blackholed (\(uvErrorName(error)))")
        } else {
            finish(reason: "closed by the app while its interface was blackholed")
        }
    }

    /// Back from a blackhole (the upstream open): reads the app's side as usual again,
    /// after handing the link what was held.
    private func releaseHeldApp() {
        guard watchingHeldApp else { return }
        watchingHeldApp = false
        client.stopReading()
        client.onRead = { [weak self] chunk in self?.didRead(chunk, .uplink) }
        client.onReadEnd = { [weak self] error in self?.didEnd(.uplink, error: error) }
        let held = heldFromApp
        heldFromApp = []
        heldFromAppBytes = 0
        // Stamped when read (`didReadWhileHeld`); nothing was delivered to the app since.
        for chunk in held where stage == .open { didRead(chunk, .uplink) }
    }

    func resumeReading() {
        guard stage == .open else { return }
        releaseHeldApp()
        guard stage == .open else { return }
        for direction in Direction.allCases where !pausedByBackpressure.contains(direction) && !self[direction].sourceEnded {
            source(direction)?.startReading()
        }
    }

    // MARK: - Delivering

    /// The link and the faults released these bytes of `direction`: write them to the destination.
    func deliver(_ payload: SliceRun, _ direction: Direction) {
        guard stage == .open, let destination = destination(direction), payload.count > 0 else { return }
        let written = payload.count
        self[direction].bytesInWrite += written
        self[direction].total += written
        stats[bytes: direction] += written
        if direction == .downlink { messages.delivered() }
        core.counters[interface]?[bytes: direction] += written
        if let stalled = self[direction].progressed(now: core.now) {
            core.emit(.flowResumed(connection: id, interface: interface, direction: direction,
                                   stalledMilliseconds: Double(stalled) / 1e6))
        }
        destination.write(payload.slices) { [weak self] status in
            guard let self else { return }
            self[direction].bytesInWrite -= written
            if status != 0 {
                // The connection is being torn down, or the destination is gone (an app
                // killed with bytes unread: its socket answered RST). Gone, it ends now:
                // forwarding on into a dead socket would keep the connection open for as
                // long as the upstream has bytes, and count them delivered.
                if self.stage == .open {
                    let side = direction == .downlink ? "client" : "upstream"
                    self.reset(reason: "\(side) write error: \(uvErrorName(status))")
                }
                return
            }
            self.relieveBackpressure(direction)
            self.finishIfDrained(direction)
        }
    }

    /// A connection fault fired: reset or close, as it says.
    func perform(_ action: FaultAction) {
        switch action {
        case .reset(let reason): reset(reason: reason)
        case .close(let reason): finish(reason: reason)
        }
    }

    /// The close delay of `direction`'s end is over (`ConnectionTimers`): it passes now.
    func passEnd(_ direction: Direction) {
        self[direction].endPassed = true
        finishIfDrained(direction)
    }

    private func finishIfDrained(_ direction: Direction) {
        guard stage == .open, self[direction].sourceEnded, isDrained(direction), !self[direction].shutdownStarted,
              let destination = destination(direction) else { return }
        // Slow close: the end waits out the interface's close delay first.
        if !self[direction].endPassed {
            guard !self[direction].endHeld else { return }
            if core.holdsEnd(of: self, direction) {
                self[direction].endHeld = true
                return
            }
        }
        self[direction].shutdownStarted = true
        destination.shutdown { [weak self] _ in
            guard let self else { return }
            if self.uplink.shutdownStarted, self.downlink.shutdownStarted {
                self.close(reason: "closed by peers")
            }
        }
    }

    // MARK: - Ending

    /// RST both sides now.
    func reset(reason: String) {
        guard stage != .closed else { return }
        core.emit(.connectionReset(connection: id, interface: interface, reason: reason))
        core.counters[interface]?.connectionsReset += 1
        teardown()
        client.closeWithReset()
        upstream?.closeWithReset()
        core.connectionEnded(self, reason: reason)
    }

    /// FIN both sides now, dropping what the link still held (the core removes it from the link).
    func finish(reason: String) {
        guard stage != .closed else { return }
        let upstreamConnecting = stage == .connecting
        teardown()
        if !client.isClosing { client.shutdown { [client] _ in client.close() } }
        if let upstream, !upstream.isClosing {
            // An upstream connect still pending has sent nothing: it is closed at once. A
            // shutdown queued behind it would never run (libuv stops watching for POLLOUT when
            // the connect completes with nothing to write), and the socket would stay open
            // in CLOSE-WAIT, keeping the loop, and `LinkConditioner.stop()`, from ever ending.
            if upstreamConnecting { upstream.close() } else { upstream.shutdown { _ in upstream.close() } }
        }
        core.connectionEnded(self, reason: reason)
    }

    private func close(reason: String) {
        guard stage != .closed else { return }
        teardown()
        client.close()
        upstream?.close()
        core.connectionEnded(self, reason: reason)
    }

    private func teardown() {
        stage = .closed
        pauseReading()
        stats.ageMilliseconds = Double(core.now - acceptedAt) / 1e6
    }
}

extension Direction {
    var opposite: Direction { self == .downlink ? .uplink : .downlink }
}
