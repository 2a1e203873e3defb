import DeadzoneKit
import Foundation

/// Thrown to stop a worker's try without failing the download (paused, cancelled, the path changed).
struct Aborted: Error {}

/// Whether `error` only says the try was stopped on purpose.
func isAbort(_ error: any Error) -> Bool {
    if error is Aborted { return true }
    if case FetchError.aborted? = error as? FetchError { return true }
    return false
}

/// A permanent failure: the download fails, the message says why.
struct Refused: Error, CustomStringConvertible {
    var description: String
    init(_ why: String) { description = why }
}

extension Engine {
    /// Each download has a worker thread: it waits until the download may go on, then
    /// tries it; network failures are retried with backoff.
    func startWorker(_ token: String) {
        guard runtime[token]?.working != true else { return }
        runtime[token]?.working = true
        let thread = Thread { [self] in work(token) }
        thread.name = "download-\(token.prefix(8))"
        thread.start()
    }

    private func work(_ token: String) {
        while let attempt = nextAttempt(token) {
            defer { lock.withLock { runtime[token]?.attempts.removeAll { $0 === attempt } } }
            do {
                try download(token, attempt)
            } catch {
                handle(error, of: token, attempt)
            }
        }
    }

    /// A try ended with `error`: an abort already said what comes next; a network failure
    /// suspends the download and backs off; anything else fails it.
    private func handle(_ error: any Error, of token: String, _ attempt: Attempt) {
        if isAbort(error) { return }
        lock.withLock {
            guard !attempt.aborted, let state = records[token]?.state, state.isInFlight else { return }
            if case FetchError.network = error {
                Log.say("\(token.prefix(8)) \(error)")
                if state == .requested || state == .downloading { set(token, .suspendedNetwork) }
                if let delay = runtime[token]?.backoff.next() { runtime[token]?.retryAt = Clock.now + delay }
            } else {
                Log.say("\(token.prefix(8)) failed: \(error)")
                report { try events.error("\(error)", download: token) }
                set(token, .failed)
            }
        }
    }

    /// Waits until the download may go on; nil once it is no longer in flight.
    private func nextAttempt(_ token: String) -> Attempt? {
        lock.withLock {
            while true {
                guard let record = records[token], record.state.isInFlight else {
                    runtime[token]?.working = false
                    lock.broadcast()
                    return nil
                }
                let (interface, waiting) = route(for: record)
                var wait: TimeInterval?
                if !pathKnown && Clock.now < launchedAt + Self.pathWait {
                    wait = 0.1
                } else if record.state == .suspendedUser {
                    wait = 1
                } else if let waiting {
                    set(token, waiting)
                    wait = 1
                } else if record.needsLicense && !mayExchangeLicense {
                    set(token, .suspendedAwaitingForeground)
                    wait = 1
                } else if let retryAt = runtime[token]?.retryAt, retryAt > Clock.now {
                    wait = retryAt - Clock.now
                }
                if let wait {
                    _ = lock.wait(until: Date().addingTimeInterval(wait))
                    continue
                }
                guard let interface else { continue }
                let attempt = Attempt(interface: interface)
                runtime[token]?.attempts = [attempt]
                return attempt
            }
        }
    }

    /// Throws Aborted when the worker must start nothing more.
    func goOn(_ token: String, _ attempt: Attempt) throws {
        try lock.withLock {
            guard !attempt.aborted, let state = records[token]?.state, state.isInFlight, state != .suspendedUser else { throw Aborted() }
        }
    }

    /// What a transfer calls as bytes come: the download is `downloading` (reported when
    /// bytes arrive, so a retry that reaches nobody never claims progress).
    func onBytes(_ token: String, _ attempt: Attempt) -> @Sendable (Int) -> Void {
        { [self] _ in
            lock.withLock {
                guard !attempt.aborted, let state = records[token]?.state, state.isInFlight else { return }
                runtime[token]?.backoff.reset()
                if state != .downloading && state != .suspendedUser { set(token, .downloading) }
            }
        }
    }

    /// One try: the playlists (once), the license (if it needs one), every key, init section and segment not stored yet.
    private func download(_ token: String, _ attempt: Attempt) throws {
        if lock.withLock({ records[token]?.plan }) == nil { try plan(token, attempt) }
        if lock.withLock({ records[token]?.needsLicense }) == true { try acquireLicense(token, attempt) }
        guard let plan = lock.withLock({ records[token]?.plan }) else { throw Aborted() }
        var pending: [Resource] = []
        var stored: [String: Int] = [:]
        for resource in plan.resources {
            if store.size(token: token, local: resource.local) != nil {
                stored[resource.stream, default: 0] += 1
            } else {
                pending.append(resource)
            }
        }
        lock.withLock { runtime[token]?.stored = stored }
        try fetchInLanes(token, attempt, pending)
        try lock.withLock {
            guard !attempt.aborted, let state = records[token]?.state, state.isInFlight, state != .suspendedUser else { throw Aborted() }
            set(token, .downloading)
            for selection in plan.selections.keys.sorted() {
                report { try events.progress(token, selection: selection, fraction: 1) }
            }
            set(token, .downloaded)
            report { try events.finished(token, package: store.masterPath(token)) }
        }
    }

    /// Master playlist → the chosen renditions' media playlists, written into the
    /// package; the plan lists every key, init section and segment to fetch (`PlanBuilder`).
    private func plan(_ token: String, _ attempt: Attempt) throws {
        guard let record = lock.withLock({ records[token] }) else { throw Aborted() }
        let masterURL = try record.masterURL()
        let master = try MasterPlaylist(text: try playlist(masterURL, token, attempt))
        let chosen = try master.select(audioLanguages: record.request.audioLanguages, subtitleLanguages: record.request.subtitleLanguages)
        var builder = PlanBuilder(master: masterURL)
        for choice in chosen {
            try goOn(token, attempt)
            let url = try HLS.resolve(choice.uri, against: masterURL)
            let media = try MediaPlaylist(text: try playlist(url, token, attempt))
            let copy = try builder.add(media, at: url, selection: choice.selection)
            try store.write(Data(copy.text.utf8), token: token, local: copy.local)
        }
        let text = master.packageText(keeping: chosen, keepsSessionKey: builder.keepsSessionKey)
        try store.write(Data(text.utf8), token: token, local: Store.master)
        try lock.withLock {
            guard var record = records[token], record.state.isInFlight else { throw Aborted() }
            record.plan = builder.plan
            records[token] = record
            try store.save(record)
        }
    }

    /// A playlist's text; one that does not start like a playlist is a captive portal's
    /// page (retried as a network failure, never stored).
    private func playlist(_ url: URL, _ token: String, _ attempt: Attempt) throws -> String {
        let data = try client.fetch(url, over: attempt, onBytes: onBytes(token, attempt)).body
        guard HLS.looksLikePlaylist(data) else { throw FetchError.network("\(url.path): not a playlist (no #EXTM3U)") }
        return String(decoding: data, as: UTF8.self)
    }
}
