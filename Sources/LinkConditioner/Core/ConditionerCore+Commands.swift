import BenchCore

/// What other threads ask of the loop (through `LinkConditioner`).
enum ConditionerCommand: Sendable {
    case setState(InterfaceKind, InterfaceState, PathUpdatePolicy?)
    case setLink(InterfaceKind, InterfaceLink)
    case cutConnections(InterfaceKind, ConnectionCut)
    case applyPhase(Phase)
    case controlTimeline(TimelineControl)
    case snapshot(CheckedContinuation<ConditionerSnapshot, Never>)
    case stop
}

extension ConditionerCore {
    func handle(_ command: ConditionerCommand) {
        guard !isStopping else {
            if case .snapshot(let continuation) = command { continuation.resume(returning: snapshot()) }
            return
        }
        switch command {
        case let .setState(kind, state, policy):
            let changed = perform(overlay.step(kind, state), phase: nil)
            pathMayHaveChanged(policy: policy, stateChanged: changed)
        case let .setLink(kind, link):
            setLink(kind, link)
            pathMayHaveChanged(policy: nil)
        case let .cutConnections(kind, cut):
            cutConnections(kind, cut)
        case .applyPhase(let phase):
            apply(phase, index: -1)
        case .controlTimeline(let control):
            controlTimeline(control)
        case .snapshot(let continuation):
            continuation.resume(returning: snapshot())
        case .stop:
            stop()
        }
        rearm()
    }

    /// Applies one timeline phase under the overlay rule (`ProfileOverlay`): links
    /// first, then the states the driver does not hold, then the path.
    func apply(_ phase: Phase, index: Int) {
        let changed = perform(overlay.play(phase), phase: index)
        emit(.phaseApplied(index: index, label: phase.label, at: phase.at.seconds))
        pathMayHaveChanged(policy: phase.pathUpdate, stateChanged: changed)
    }

    /// Does what the overlay decided, in order; `phase` is the index of the profile's
    /// phase that caused it (nil for a driver's step). Whether an interface changed state.
    @discardableResult
    private func perform(_ actions: [ProfileOverlay.Action], phase: Int?) -> Bool {
        var changed = false
        for action in actions {
            switch action {
            case let .setLink(kind, link):
                if interfaces[kind]?.setup.link != link { setLink(kind, link) }
            case let .setState(kind, state):
                changed = setState(kind, state) || changed
            case let .held(kind, state):
                emit(.profileStateHeld(interface: kind, state: state, phase: phase ?? -1))
            case let .overridden(kind, state):
                emit(.profileStateOverridden(interface: kind, state: state))
            }
        }
        return changed
    }

    /// Changes an interface's links live: open connections feel it at once.
    func setLink(_ kind: InterfaceKind, _ link: InterfaceLink) {
        guard let runtime = interfaces[kind] else { return }
        runtime.setup.link = link
        let rto = link.retransmissionTimeout.nanoseconds
        for direction in Direction.allCases {
            pump(runtime, direction)  // serve what finished under the old parameters first
            runtime.links[direction].update(parameters: link[direction], retransmissionTimeout: rto, now: now)
        }
        runtime.links.update(faults: link.faults)
        emit(.linkChanged(interface: kind, summary: runtime.setup.summary))
        for direction in Direction.allCases { pump(runtime, direction) }
        fireTimers(runtime)  // a connection already older than a new time fault ends now
    }

    /// Ends every open connection of an interface that stays up: RST or FIN both sides,
    /// as a middlebox or a flaky access point would; new connections are served as before.
    func cutConnections(_ kind: InterfaceKind, _ cut: ConnectionCut) {
        guard let runtime = interfaces[kind] else { return }
        for connection in runtime.connections.values.sorted(by: { $0.id < $1.id }) {
            switch cut {
            case .reset: connection.reset(reason: ConnectionCut.reason(.reset))
            case .close: connection.finish(reason: ConnectionCut.reason(.close))
            }
        }
    }

    /// Takes an interface up or down; whether its state changed.
    @discardableResult
    func setState(_ kind: InterfaceKind, _ state: InterfaceState) -> Bool {
        guard let runtime = interfaces[kind], runtime.setup.state != state else { return false }
        let wasForwarding = runtime.isForwarding
        runtime.setup.state = state
        switch state {
        case .up:
            followAdmission(runtime)
            emit(.interfaceUp(interface: kind))
            if !wasForwarding { resumeForwarding(runtime) }
        case .down(let mode):
            emit(.interfaceDown(interface: kind, mode: mode))
            // Reset and refuse: the kernel refuses new connections, or (countsRefusals)
            // the listener accepts, counts and resets them. Blackhole: accepted and held (the app's side still
            // read, so that its giving a connection up is seen when it happens).
            followAdmission(runtime)
            let connections = runtime.connections.values.sorted { $0.id < $1.id }
            switch mode {
            case .reset:
                for connection in connections { connection.reset(reason: "interface \(kind) down (reset)") }
            case .refuse:
                for connection in connections { connection.finish(reason: "interface \(kind) down (refuse)") }
            case .blackhole:
                for connection in connections { connection.holdWhileBlackholed() }
            }
        }
        return true
    }

    /// After a blackhole: held connections connect, paused ones read again, the link
    /// restarts from now (no credit for the time it was dead).
    private func resumeForwarding(_ runtime: InterfaceRuntime) {
        let rto = runtime.setup.link.retransmissionTimeout.nanoseconds
        for direction in Direction.allCases {
            runtime.links[direction].update(parameters: runtime.setup.link[direction], retransmissionTimeout: rto, now: now)
        }
        fireTimers(runtime)  // what fell due while blackholed, before anything moves again
        for connection in runtime.connections.values.sorted(by: { $0.id < $1.id }) {
            if connection.stage == .held {
                startConnecting(connection, runtime)
            } else {
                connection.resumeReading()
            }
        }
        for direction in Direction.allCases { pump(runtime, direction) }
    }

    /// The path as the OS would see it now: WiFi first, blackholed interfaces included.
    var truePath: NetworkPath {
        NetworkPath(interfaces: InterfaceKind.allCases.compactMap { interfaces[$0]?.pathInterface })
    }

    /// Reports a change of the true path to the publisher. `stateChanged`: an interface
    /// went up or down, which an OS path monitor sees even when the path it computes is
    /// the one it computed before (`PathPublisher.stateChanged`): e.g. WiFi reset (the
    /// app told "unsatisfied"), then blackholed with the update withheld (the true path
    /// "satisfied" again, not told), then up: the app must be told "satisfied" now.
    func pathMayHaveChanged(policy: PathUpdatePolicy?, stateChanged: Bool = false) {
        let path = truePath
        let policy = policy ?? configuration.profile.pathUpdates
        if path != knownPath {
            knownPath = path
            emit(.pathChanged(path: path))
            publisher.pathChanged(to: path, policy: policy, now: now)
        } else if stateChanged {
            publisher.stateChanged(policy: policy, now: now)
        }
        publishDuePaths()
    }

    func snapshot() -> ConditionerSnapshot {
        let current = now
        let kinds = InterfaceKind.allCases.filter { interfaces[$0] != nil }
        return ConditionerSnapshot(
            interfaces: kinds.map { kind in
                let runtime = interfaces[kind]!
                return .init(kind: kind, endpoint: runtime.endpoint.description, state: runtime.setup.state,
                             counters: counters[kind] ?? InterfaceCounters())
            },
            connections: kinds.flatMap { kind in
                interfaces[kind]!.connections.values.sorted { $0.id < $1.id }.map { connection in
                    var stats = connection.stats
                    stats.ageMilliseconds = Double(current - connection.acceptedAt) / 1e6
                    return .init(id: connection.id, interface: kind, peer: connection.peer, stats: stats)
                }
            },
            path: truePath,
            publishedPath: publisher.lastPublished,
            timeline: timeline.map { TimelineStatus($0, now: current) }
        )
    }
}
