import BenchCore
import Foundation

/// Feeding events to the state machines and performing what they return.
extension DownloadManager {
    /// The conditions of a download now: its interface choice under its cellular
    /// setting, storage, and the app's lifecycle.
    func conditions(for record: DownloadRecord) -> DownloadConditions {
        DownloadConditions(
            network: InterfaceChoice(path: pathProvider.currentPath, allowsCellular: record.parameters.allowsCellular),
            hasStorage: hasStorage, isForeground: isForeground)
    }

    /// Feeds an event to `token`'s machine; a refusal becomes an `EngineError` for calls
    /// from the app and an error event for internal reports.
    func feed(
        _ token: DownloadToken, _ event: (inout DownloadStateMachine) throws(IllegalTransition) -> [DownloadAction]
    ) async throws(EngineError) {
        guard var entry = entries[token] else { throw .unknownToken(token) }
        let actions: [DownloadAction]
        do { actions = try event(&entry.machine) } catch { throw .notPermitted("\(error)") }
        entries[token] = entry
        await perform(actions, for: token)
    }

    /// `feed` for reports from the engine's own tasks: a refusal is logged, not thrown.
    func report(_ token: DownloadToken, _ event: (inout DownloadStateMachine) throws(IllegalTransition) -> [DownloadAction]) async {
        do { try await feed(token, event) } catch { sink.yield(.error(token, message: "\(error)")) }
    }

    /// Recomputes every download's conditions (path, storage, lifecycle) and feeds changes.
    func conditionsChanged() async {
        for token in Array(entries.keys) {
            guard var entry = entries[token] else { continue }
            let now = conditions(for: entry.record)
            guard now != entry.machine.conditions else { continue }
            let actions = entry.machine.conditionsChanged(now)
            entries[token] = entry
            await perform(actions, for: token)
        }
        await schedule()
    }

    func pathChanged() async {
        await conditionsChanged()
    }

    /// Feeds every download the path the provider gives now, and returns once each has
    /// settled on it. The path watcher does the same when the update reaches it; an app
    /// that answers a path change (the agent's `setPath` reply) calls this first, so that
    /// nothing it decides after its answer (a retry due, a resume) is decided on the
    /// path before.
    public func applyCurrentPath() async {
        await conditionsChanged()
    }

    /// Gives queued downloads a slot while fewer than the limit transfer. A download
    /// paused by the user does not hold a slot.
    func schedule() async {
        let busy = entries.values.filter { entry in
            let state = entry.machine.state
            return state == .downloading || (state.suspensionReason != nil && state.suspensionReason != .user)
        }.count
        var free = configuration.maximumConcurrentDownloads - busy
        let queued = entries.values.filter { $0.machine.state == .requested && !$0.machine.isPausedByUser }
            .sorted { $0.record.requestedAt < $1.record.requestedAt }
        for entry in queued where free > 0 {
            free -= 1
            await report(entry.token) { machine throws(IllegalTransition) in try machine.slotGranted() }
        }
    }

    /// Performs `actions` for `token`, in order, after any batch of the same download
    /// still in progress: actions await (index writes, file removal), and the actor lets
    /// a later transition in meanwhile; without the queue its `stateChanged` could be
    /// told before the earlier one's. Returns when `actions` are done. An action must
    /// not call `perform` for its own download (it would wait for itself): it queues its
    /// follow-up with `performNext`.
    func perform(_ actions: [DownloadAction], for token: DownloadToken) async {
        guard performing.insert(token).inserted else {
            await withCheckedContinuation { waiting in
                waitingActions[token, default: []].append(PendingActions(actions: actions, done: waiting))
            }
            return
        }
        await performNow(actions, for: token)
        while let next = waitingActions[token]?.first {
            waitingActions[token]?.removeFirst()
            await performNow(next.actions, for: token)
            next.done?.resume()
        }
        waitingActions[token] = nil
        performing.remove(token)
    }

    private func performNow(_ actions: [DownloadAction], for token: DownloadToken) async {
        for action in actions {
            guard entries[token] != nil else { return }
            switch action {
            case .stopTransfer:
                entries[token]?.stopTransfer()
            case .persist(let snapshot):
                entries[token]?.record.snapshot = snapshot
                // A terminal state that keeps its record stamps its end; a cancel or delete
                // (no record left) tells its end with `removed`.
                if [.downloaded, .failed].contains(snapshot.state), entries[token]?.record.finishedAt == nil {
                    entries[token]?.record.finishedAt = configuration.now()
                }
                await save(token)
            case .deleteRecord:
                _ = try? await index.delete(token.rawValue)
            case .deleteLicense:
                _ = try? await index.deleteLicense(for: token.rawValue)
                if let directory = entries[token]?.record.packageDirectory {
                    try? FileManager.default.removeItem(atPath: packagePath(directory) + "/" + PackagedLicense.fileName)
                }
            case .deleteMediaFiles:
                await deleteFiles(token)
            case .emitStateChanged(let from, let to):
                sink.yield(.stateChanged(token, from: from, to: to))
                if to == .notDownloaded, entries[token]?.machine.state == .notDownloaded {
                    entries[token] = nil
                    sink.yield(.removed(token, at: configuration.now()))
                }
                if to == .downloaded, let directory = entries[token]?.record.packageDirectory {
                    sink.yield(.finished(token, package: URL(fileURLWithPath: packagePath(directory))))
                }
            case .reportFailure(let failure):
                entries[token]?.record.errorMessage = failure.description
                await save(token)
                sink.yield(.error(token, message: failure.description))
            case .acquireLicense:
                startLicense(token)
            case .startTransfer(let interface):
                startTransfer(token, over: interface)
            case .scheduleRetry:
                let kind = entries[token]?.nextRetryKind ?? .network
                entries[token]?.nextRetryKind = .network
                scheduleRetry(token, kind: kind, lastError: entries[token]?.lastError ?? "network")
            }
        }
    }

    func save(_ token: DownloadToken) async {
        guard let record = entries[token]?.record else { return }
        do { try await index.update(record) } catch {
            sink.yield(.error(token, message: "cannot save the download: \(error)"))
        }
    }

    /// Removes the package; a canceling download then finishes its cancel.
    func deleteFiles(_ token: DownloadToken) async {
        guard let directory = entries[token]?.record.packageDirectory else { return }
        if let stopped = entries[token]?.stoppedTransfer {
            // A stopped transfer may be in the middle of writing (the package's playlists
            // right after its license arrived): let it end first. Bounded, because a
            // transfer still waiting for a license exchange that itself waits for this
            // download's actions would never end.
            await Self.waitForEnd(of: stopped, atMost: .seconds(2))
            entries[token]?.stoppedTransfer = nil
        }
        let files = PackageFiles(directory: packagePath(directory))
        do { try files.removeAll() } catch {
            sink.yield(.error(token, message: "cannot remove \(files.directory): \(error)"))
        }
        if entries[token]?.machine.state == .canceling {
            performNext(token) { machine throws(IllegalTransition) in try machine.cancelFinished() }
        }
    }

    /// Returns when `task` has ended or `bound` has passed, whichever comes first.
    /// (Not a task group: a group would wait for the task however long it takes.)
    static func waitForEnd(of task: Task<Void, Never>, atMost bound: Duration) async {
        let (ends, end) = AsyncStream<Void>.makeStream()
        let ended = Task {
            await task.value
            end.yield()
        }
        let timer = Task {
            try? await Task.sleep(for: bound)
            end.yield()
        }
        for await _ in ends { break }
        timer.cancel()
        ended.cancel()
        end.finish()
    }

    /// Feeds `event` from within one of `token`'s own actions: the transition happens
    /// now, its actions run right after the batch in progress (and those queued before).
    func performNext(
        _ token: DownloadToken, _ event: (inout DownloadStateMachine) throws(IllegalTransition) -> [DownloadAction]
    ) {
        guard var entry = entries[token] else { return }
        do {
            let actions = try event(&entry.machine)
            entries[token] = entry
            waitingActions[token, default: []].append(PendingActions(actions: actions, done: nil))
        } catch {
            sink.yield(.error(token, message: "\(error)"))
        }
    }

    /// Arms the retry timer with the backoff; `retryDue` when it fires, or a permanent
    /// failure when bounded retries are spent.
    func scheduleRetry(_ token: DownloadToken, kind: RetryBackoff.FailureKind, lastError: String = "network") {
        guard var entry = entries[token] else { return }
        switch entry.retry.failed(kind, now: configuration.clock.nowNanoseconds) {
        case .retry(let delay, _):
            entry.retryTimer?.cancel()
            entry.retryTimer = Task { [weak self] in
                try? await Task.sleep(for: delay)
                guard !Task.isCancelled else { return }
                await self?.retryFired(token)
            }
            entries[token] = entry
        case .giveUp(let attempts):
            entries[token] = entry
            Task { [weak self] in
                await self?.report(token) { machine throws(IllegalTransition) in
                    try machine.permanentFailure(.retriesExhausted(attempts: attempts, lastError: lastError))
                }
            }
        }
    }

    func retryFired(_ token: DownloadToken) async {
        entries[token]?.retryTimer = nil
        guard let state = entries[token]?.machine.state, state == .downloading || state.suspensionReason != nil else { return }
        await report(token) { machine throws(IllegalTransition) in try machine.retryDue() }
    }

    func packagePath(_ relative: String) -> String {
        (configuration.storageDirectory as NSString).appendingPathComponent(relative)
    }
}

/// A batch of actions waiting for the batch of the same download in progress, and
/// its caller (nil when the caller is that batch itself).
struct PendingActions {
    var actions: [DownloadAction]
    var done: CheckedContinuation<Void, Never>?
}
