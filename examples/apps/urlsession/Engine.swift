import DeadzoneKit
import Foundation

/// What the engine keeps of a download while this process runs (not in the index).
struct Runtime {
    /// The attempts under way (one per lane), abortable.
    var attempts: [Attempt] = []
    /// A license exchange is under way.
    var licensing = false
    var backoff = Backoff()
    /// No try before this (monotonic seconds).
    var retryAt: TimeInterval = 0
    /// Segments stored per selection, for progress.
    var stored: [String: Int] = [:]
    /// The download's worker thread runs.
    var working = false
}

/// Every download of the storage directory and what the operating system said last. One
/// lock (a condition) for all of it: commands change state and wake the workers; each
/// download's worker thread does the network and disk work outside the lock.
// @unchecked: `records`, `runtime`, `interfaces` and the other `var`s are touched only while
// holding `lock` (the condition above); `store`, `events` and `client` are thread-safe.
final class Engine: @unchecked Sendable {
    static let farFuture = Date(timeIntervalSince1970: 64_092_211_200)  // 4001-01-01, a purchase's expiry
    /// How long a launch waits for the first setPath before it judges the network.
    static let pathWait: TimeInterval = 2
    /// prepareForBackground waits at most this for licenses (the harness's limit is 30 s).
    static let prepareSeconds: TimeInterval = 25

    let store: Store
    let events: DeadzoneEvents
    let client = HTTPClient()
    let after: RelaunchKind
    let lock = NSCondition()
    var records: [String: DownloadRecord] = [:]
    var runtime: [String: Runtime] = [:]
    var interfaces: [NetworkInterface] = []
    var foreground = true
    /// After prepareForBackground: no new license exchange until the foreground.
    var holdingLicenses = false
    var allowsCellular: Bool
    var pathKnown = false
    let launchedAt = Clock.now

    init(store: Store, events: DeadzoneEvents, after: RelaunchKind) {
        self.store = store
        self.events = events
        self.after = after
        allowsCellular = store.allowsCellular
    }

    // MARK: launch

    /// Loads the index: finishes removals a kill interrupted, fails the downloads in
    /// flight after a force-quit or reboot, reports partial segments, starts the rest.
    func restore() {
        lock.withLock {
            for record in store.downloads {
                records[record.token] = record
                runtime[record.token] = Runtime()
            }
            for record in records.values.sorted(by: { $0.requestedAt < $1.requestedAt }) {
                if record.state == .canceling {
                    forget(record.token)
                } else if record.state.isInFlight && after.failsDownloadsInFlight {
                    set(record.token, .failed)
                }
            }
            let partial = records.values.filter(\.state.isInFlight).flatMap(partialSegments)
            if !partial.isEmpty { report { try events.partialSegmentsFound(partial) } }
            for token in records.keys where records[token]?.state.isInFlight == true { startWorker(token) }
        }
    }

    private func partialSegments(_ record: DownloadRecord) -> [PartialSegment] {
        (record.plan?.resources ?? []).compactMap { resource in
            guard resource.stream != PlanBuilder.initStream,
                  let bytes = store.size(token: record.token, local: resource.local + ".part"), bytes > 0 else { return nil }
            return PartialSegment(
                download: record.token, stream: resource.stream, index: resource.index, path: resource.path, bytes: bytes,
                byteRange: resource.byteRange?.header(resumingAt: 0))
        }
    }

    // MARK: commands

    func setPath(_ new: [NetworkInterface]) {
        lock.withLock {
            pathKnown = true
            interfaces = new.filter { !$0.isExpensive } + new.filter(\.isExpensive)
            for (token, record) in records where record.state.isInFlight && record.state != .suspendedUser {
                let (interface, waiting) = route(for: record)
                if let first = runtime[token]?.attempts.first, first.interface != interface {
                    abortAttempts(token)  // its interface is gone, or a better one came: go on over it
                }
                if let waiting { set(token, waiting) }
                runtime[token]?.backoff.reset()
                runtime[token]?.retryAt = 0
            }
            lock.broadcast()
        }
    }

    func setForeground(_ value: Bool) {
        lock.withLock {
            foreground = value
            if value { holdingLicenses = false }
            lock.broadcast()
        }
    }

    func setAllowsCellular(_ allowed: Bool) throws {
        try lock.withLock {
            allowsCellular = allowed
            try store.setAllowsCellular(allowed)
        }
    }

    func request(_ request: DownloadRequest) throws -> String {
        guard request.video.offlineEnabled != false else {
            throw DeadzoneRefusal("video \(request.video.id) may not be downloaded (offline_enabled is false)")
        }
        return try lock.withLock {
            let stored = StoredRequest(
                videoJSON: request.videoJSON, catalogURL: request.catalogURL, allowsCellular: request.allowsCellular ?? allowsCellular,
                rentalSeconds: request.rentalSeconds, audioLanguages: request.audioLanguages, subtitleLanguages: request.subtitleLanguages)
            let record = DownloadRecord(token: UUID().uuidString, request: stored, state: .requested, requestedAt: Date())
            try store.save(record)
            records[record.token] = record
            runtime[record.token] = Runtime()
            report { try events.stateChanged(record.token, from: .notDownloaded, to: .requested) }
            startWorker(record.token)
            return record.token
        }
    }

    func pause(_ token: String) throws {
        try lock.withLock {
            let record = try known(token)
            guard record.state.isInFlight else { throw DeadzoneRefusal("download \(token) is \(record.state.rawValue); only a download in flight pauses") }
            set(token, .suspendedUser)
            abortAttempts(token)
        }
    }

    func resume(_ token: String) throws {
        try lock.withLock {
            let record = try known(token)
            guard record.state == .suspendedUser else { throw DeadzoneRefusal("download \(token) is \(record.state.rawValue), not paused") }
            let (_, waiting) = route(for: record)
            set(token, waiting ?? .downloading)
            runtime[token]?.backoff.reset()
            runtime[token]?.retryAt = 0
            lock.broadcast()
        }
    }

    /// cancel and delete: stops the worker, then deletes every file and record of it.
    func remove(_ token: String) throws {
        try lock.withLock {
            let record = try known(token)
            if record.state.isInFlight {
                set(token, .canceling)
                abortAttempts(token)
            }
            lock.broadcast()
            let deadline = Date().addingTimeInterval(20)
            while runtime[token]?.working == true, lock.wait(until: deadline) {}
            forget(token)
        }
    }

    /// Finishes the license exchanges under way or due, then holds new ones until the
    /// foreground. Answers, per download still without a license, why.
    func prepareForBackground() -> [String: String] {
        lock.withLock {
            let deadline = Date().addingTimeInterval(Self.prepareSeconds)
            while Date() < deadline, records.keys.contains(where: licenseDue) {
                _ = lock.wait(until: Date().addingTimeInterval(0.2))
            }
            holdingLicenses = true
            var unfinished: [String: String] = [:]
            for (token, record) in records where record.needsLicense && record.state.isInFlight {
                unfinished[token] = route(for: record).0 == nil
                    ? "no allowed interface is up to reach the license server" : "the license exchange did not finish in time"
            }
            return unfinished
        }
    }

    func inspect(_ token: String) -> Inspection {
        lock.withLock {
            guard let record = records[token] else {
                return Inspection(known: false, playable: false, unplayableReason: "no download \(token) is known")
            }
            let package = store.masterPath(token)
            let expiration = record.expiration
            var reason: String?
            if record.state != .downloaded {
                reason = "the download is \(record.state.rawValue)"
            } else if record.licenseSystem != nil && record.license == nil {
                reason = "no license"
            } else if let expiration, expiration <= Date() {
                reason = "license expired"  // the exact words the harness recognises
            } else if !FileManager.default.fileExists(atPath: package) {
                reason = "the package is missing"
            }
            return Inspection(
                known: true, state: record.state, playable: reason == nil, unplayableReason: reason,
                licenseExpiration: expiration ?? (record.license != nil ? Self.farFuture : nil),
                package: record.state == .downloaded ? package : nil, files: store.fileCount(token))
        }
    }

    // MARK: state (the lock held)

    func known(_ token: String) throws -> DownloadRecord {
        guard let record = records[token] else { throw DeadzoneRefusal("no download \(token) is known") }
        return record
    }

    /// Persists, then reports, a change of state (none when it is the same).
    func set(_ token: String, _ state: DownloadState) {
        guard var record = records[token], record.state != state else { return }
        let from = record.state
        guard Lifecycle.isLegal(from: from, to: state) else {
            return Log.say("\(token.prefix(8)): not reporting the illegal change \(from.rawValue) → \(state.rawValue)")
        }
        record.state = state
        records[token] = record
        if state != .notDownloaded {
            do { try store.save(record) } catch { Log.say("the index could not be written: \(error)") }
        }
        report { try events.stateChanged(token, from: from, to: state) }
        lock.broadcast()
    }

    /// Deletes the download's files and records, and reports it `notDownloaded`.
    private func forget(_ token: String) {
        do { try store.remove(token) } catch { Log.say("the index could not be written: \(error)") }
        set(token, .notDownloaded)
        records[token] = nil
        runtime[token] = nil
    }

    func abortAttempts(_ token: String) {
        for attempt in runtime[token]?.attempts ?? [] { attempt.abort() }
    }

    /// The interface a download may use now, or the suspended state it waits in.
    func route(for record: DownloadRecord) -> (NetworkInterface?, DownloadState?) {
        if let free = interfaces.first(where: { !$0.isExpensive }) { return (free, nil) }
        guard let metered = interfaces.first(where: \.isExpensive) else { return (nil, .suspendedNetwork) }
        return record.request.allowsCellular ? (metered, nil) : (nil, .suspendedCellularNotAllowed)
    }

    var mayExchangeLicense: Bool { foreground && !holdingLicenses }

    private func licenseDue(_ token: String) -> Bool {
        guard let record = records[token], record.needsLicense, record.state.isInFlight, record.state != .suspendedUser else { return false }
        return runtime[token]?.licensing == true || route(for: record).0 != nil
    }

    /// Writes an event; a line the kit refuses is a bug of this app, said on stderr.
    func report(_ write: () throws -> Void) {
        do { try write() } catch { Log.say("\(error)") }
    }
}

/// The host's monotonic clock, in seconds.
enum Clock {
    static var now: TimeInterval { ProcessInfo.processInfo.systemUptime }
}

/// Diagnostics, on stderr only.
enum Log {
    static func say(_ text: String) {
        FileHandle.standardError.write(Data("urlsession-example: \(text)\n".utf8))
    }
}
