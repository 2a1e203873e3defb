import BenchCore
import Foundation
import HLSPlaylist

/// The offline download engine (DESIGN.md §4): persistent downloads of HLS videos with
/// their licenses, driven by per-download `DownloadStateMachine`s.
///
/// An actor: every call and every report from a running transfer is serialised here,
/// and each event fed to a state machine has its actions performed in order before the
/// next. Transfers only report, through one queue (`TransferReport`, taken by
/// `take(_:)`); they hold no reference to the manager. The I/O (HTTP, files, SQLite) runs in `TransferWorker` tasks and in the index;
/// the actor holds no lock across it. Events go out on `events`, in order.
public actor DownloadManager {
    /// Everything the engine reports, in order. One consumer.
    public nonisolated let events: AsyncStream<EngineEvent>
    let sink: AsyncStream<EngineEvent>.Continuation
    let configuration: EngineConfiguration
    let pathProvider: any NetworkPathProvider
    nonisolated let index: DownloadIndex
    let transport: HTTPTransport
    let licenseClient: LicenseClient
    var entries: [DownloadToken: DownloadEntry] = [:]
    var isForeground = true
    /// Set by `prepareForBackground()`, cleared by `setForeground(true)`: no automatic
    /// renewal is armed in between.
    var renewalsHeld = false
    var hasStorage = true
    var random: SeededGenerator
    var pathWatcher: Task<Void, Never>?
    var storageWatcher: Task<Void, Never>?
    /// Sleeps until the earliest download expiry (`DownloadParameters.expiresAt`).
    var expiryWatcher: Task<Void, Never>?
    var nextTransferID = 0
    /// The one queue from every transfer to the manager, and its one consumer
    /// (`consumeReports`, `take(_:)`): transfers report, they never call the manager.
    let reports = TransferReports()
    var reportConsumer: Task<Void, Never>?
    /// Downloads whose actions are being performed, and the batches waiting behind them:
    /// one download's actions run one batch at a time, in the order of its transitions.
    var performing: Set<DownloadToken> = []
    var waitingActions: [DownloadToken: [PendingActions]] = [:]
    /// Free bytes to leave on the disk; starts at `configuration.storageCushionBytes`.
    public private(set) var storageCushionBytes: Int64
    /// Whether new downloads may use cellular when their parameters do not say; a change
    /// applies to downloads requested after it. Default false. The user's setting: it is
    /// stored in the index and read back by `start(after:)`, so it outlives a relaunch.
    public private(set) var allowsCellular = false

    /// Opens (or creates) the index under `configuration.storageDirectory`. Call
    /// `start(after:)` next.
    public init(configuration: EngineConfiguration, path: any NetworkPathProvider = DirectNetworkPath()) throws(EngineError) {
        self.configuration = configuration
        self.pathProvider = path
        do {
            index = try DownloadIndex.open(path: (configuration.storageDirectory as NSString).appendingPathComponent("index.sqlite"))
        } catch {
            throw .index("\(error)")
        }
        transport = HTTPTransport(configuration: configuration.transport)
        licenseClient = LicenseClient(transport: transport, secret: configuration.licenseSecret)
        random = SeededGenerator(seed: configuration.seed)
        storageCushionBytes = configuration.storageCushionBytes
        (events, sink) = AsyncStream.makeStream(of: EngineEvent.self)
    }

    /// Restores every download from the index, told how the last process ended: after a
    /// user force-quit or a reboot while suspended, downloads in flight fail at once;
    /// otherwise they reconcile their files and resume. Then follows the network path.
    public func start(after termination: ProcessTermination) async {
        do {
            if let stored = try await index.setting(Self.allowsCellularSetting) { allowsCellular = stored == "true" }
        } catch {
            sink.yield(.error(nil, message: "cannot read the cellular setting: \(error)"))
        }
        let records: [DownloadRecord]
        do { records = try await index.downloads() } catch {
            sink.yield(.error(nil, message: "cannot read the download index: \(error)"))
            return
        }
        for record in records {
            let token = DownloadToken(record.token)
            var entry = DownloadEntry(
                record: record, video: loadVideo(token), machine: DownloadStateMachine(conditions: conditions(for: record)),
                retry: RetryBackoff(configuration: configuration.retry, generator: random.derived(record.token)))
            let actions: [DownloadAction]
            do { actions = try entry.machine.restored(record.snapshot, after: termination) } catch {
                sink.yield(.error(token, message: "cannot restore the download: \(error)"))
                continue
            }
            entries[token] = entry
            await perform(actions, for: token)
        }
        let updates = pathProvider.updates()
        pathWatcher = Task { [weak self] in
            for await _ in updates { await self?.pathChanged() }
        }
        await evictExpired()
        for token in entries.keys { await armRenewal(token) }
        await schedule()
    }

    /// Stops every transfer and timer, waits (up to five seconds) for the transfers to
    /// record what they stored, then closes the index and the connections.
    public func shutdown() async {
        pathWatcher?.cancel()
        expiryWatcher?.cancel()
        storageWatcher?.cancel()
        let transfers = entries.values.compactMap(\.transfer)
        for token in entries.keys { entries[token]?.stopAll() }
        let reports = reports
        let consumer = reportConsumer
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for transfer in transfers { await transfer.value }
                // Their last reports are taken before the index closes.
                reports.finish()
                await consumer?.value
            }
            group.addTask { try? await Task.sleep(for: .seconds(5)) }
            await group.next()
            group.cancelAll()
        }
        reports.finish()
        try? index.close()
        try? await transport.shutdown()
        sink.finish()
    }

    // MARK: Settings and lifecycle

    /// Sets whether downloads requested from now on may use cellular, and stores it (the
    /// user's setting outlives a relaunch).
    public func setAllowsCellular(_ allowed: Bool) async {
        allowsCellular = allowed
        do { try await index.setSetting(Self.allowsCellularSetting, to: String(allowed)) } catch {
            sink.yield(.error(nil, message: "cannot store the cellular setting: \(error)"))
        }
    }

    /// Sets whether the download `token` may use cellular from now on (stored with it),
    /// and looks at its conditions anew under the current path: allowed, one waiting for
    /// WiFi goes on over cellular; refused, one using cellular suspends.
    /// - Throws: `EngineError.unknownToken` for a download the engine does not know.
    public func setAllowsCellular(_ allowed: Bool, for token: DownloadToken) async throws(EngineError) {
        guard entries[token] != nil else { throw .unknownToken(token) }
        entries[token]?.record.parameters.allowsCellular = allowed
        await save(token)
        await conditionsChanged()
    }

    /// The key of the cellular setting in the index.
    static let allowsCellularSetting = "allowsCellular"

    /// Changes the free-space cushion; a storage suspension lifts once space is above it.
    public func setStorageCushion(bytes: Int64) {
        storageCushionBytes = max(0, bytes)
    }

    /// The app came to the foreground (true) or went to the background (false).
    /// Renewal timers are dropped in the background and armed again in the foreground.
    public func setForeground(_ foreground: Bool) async {
        isForeground = foreground
        if foreground { renewalsHeld = false }
        for token in entries.keys {
            if foreground { await armRenewal(token) } else { dropRenewal(token) }
        }
        await conditionsChanged()
    }

    /// Completes every license exchange under way (and starts the ones due, queued
    /// downloads included), so that the app can go to the background with all its
    /// licenses. Automatic renewals under way finish too, and none starts again until
    /// `setForeground(true)`. Returns the downloads whose license could not be
    /// acquired, with why; empty when every one is stored.
    @discardableResult
    public func prepareForBackground() async -> [DownloadToken: String] {
        renewalsHeld = true
        for token in entries.keys { dropRenewal(token) }
        for renewal in entries.values.compactMap(\.renewalExchange) { _ = await renewal.value }
        var waited: [DownloadToken: LicenseExchange] = [:]
        for (token, entry) in entries where entry.machine.needsLicense && entry.video != nil {
            guard [.downloading, .requested].contains(entry.machine.state) || entry.machine.state.suspensionReason != nil
            else { continue }
            waited[token] = startLicense(token)
        }
        for exchange in waited.values { _ = await exchange.value }
        var unfinished: [DownloadToken: String] = [:]
        for token in waited.keys where entries[token]?.machine.needsLicense == true {
            unfinished[token] = entries[token]?.licenseError ?? "the license exchange did not finish"
        }
        return unfinished
    }

    // MARK: Queries

    /// Every download's token, oldest request first.
    public var tokens: [DownloadToken] {
        entries.values.sorted { $0.record.requestedAt < $1.record.requestedAt }.map { DownloadToken($0.record.token) }
    }

    /// The status of `token`, or nil.
    public func status(_ token: DownloadToken) -> DownloadStatus? {
        entries[token].map(status(of:))
    }

    /// Every download's status, oldest request first.
    public var statuses: [DownloadStatus] {
        tokens.compactMap { status($0) }
    }

    func status(of entry: DownloadEntry) -> DownloadStatus {
        let record = entry.record
        return DownloadStatus(
            token: DownloadToken(record.token), videoID: record.videoID, state: entry.machine.state,
            requestedAt: record.requestedAt, startedAt: record.startedAt, finishedAt: record.finishedAt,
            licenseRequestedAt: record.licenseRequestedAt, bytesDownloaded: record.bytesDownloaded,
            bytesExpected: record.bytesExpected, progress: entry.overallProgress, failure: entry.machine.failure,
            expiresAt: record.parameters.expiresAt)
    }
}
