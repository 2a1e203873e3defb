import BenchCore
import OfflineDownloads

/// Conditions the state machine tests use.
extension DownloadConditions {
    /// Only cellular is up and the download allows it.
    static let cellular = DownloadConditions(network: .use(.cellular))
    /// Nothing is up.
    static let offline = DownloadConditions(network: .noNetwork)
    /// Only cellular is up and the download may not use it.
    static let cellularOnlyNotAllowed = DownloadConditions(network: .cellularNotAllowed)
    /// WiFi is up but free space is below the cushion.
    static let lowStorage = DownloadConditions(network: .use(.wifi), hasStorage: false)
    /// WiFi is up and the app is in the background.
    static let background = DownloadConditions(network: .use(.wifi), isForeground: false)
}

/// One event, as data, so that tables can name events and apply them.
enum Step: Sendable, CustomStringConvertible {
    case request(license: Bool)
    case preload
    case licenseAcquired
    case slot
    case conditions(DownloadConditions)
    case stall
    case retry
    case pause
    case resume
    case complete
    case fail(DownloadFailure)
    case cancel
    case cancelFinished
    case delete
    case expire
    case restore(DownloadStateMachine.Snapshot, after: ProcessTermination)

    /// The event this step feeds.
    var event: DownloadEvent {
        switch self {
        case .request: .downloadRequested
        case .preload: .licensePreloaded
        case .licenseAcquired: .licenseAcquired
        case .slot: .slotGranted
        case .conditions: .conditionsChanged
        case .stall: .stalled
        case .retry: .retryDue
        case .pause: .userPaused
        case .resume: .userResumed
        case .complete: .completed
        case .fail: .permanentFailure
        case .cancel: .cancelRequested
        case .cancelFinished: .cancelFinished
        case .delete: .deleteRequested
        case .expire: .expired
        case .restore: .restored
        }
    }

    var description: String { event.rawValue }

    /// Feeds the event to `machine`.
    func apply(to machine: inout DownloadStateMachine) throws(IllegalTransition) -> [DownloadAction] {
        switch self {
        case .request(let license): try machine.downloadRequested(requiresLicense: license)
        case .preload: try machine.licensePreloaded()
        case .licenseAcquired: try machine.licenseAcquired()
        case .slot: try machine.slotGranted()
        case .conditions(let conditions): machine.conditionsChanged(conditions)
        case .stall: try machine.stalled()
        case .retry: try machine.retryDue()
        case .pause: try machine.userPaused()
        case .resume: try machine.userResumed()
        case .complete: try machine.completed()
        case .fail(let failure): try machine.permanentFailure(failure)
        case .cancel: try machine.cancelRequested()
        case .cancelFinished: try machine.cancelFinished()
        case .delete: try machine.deleteRequested()
        case .expire: try machine.expired()
        case .restore(let snapshot, let termination): try machine.restored(snapshot, after: termination)
        }
    }

    /// One step of each event, for exhaustive tables.
    static let oneOfEach: [Step] = [
        .request(license: false), .preload, .licenseAcquired, .slot, .conditions(.offline), .stall, .retry,
        .pause, .resume, .complete, .fail(.httpStatus(404)), .cancel, .cancelFinished, .delete, .expire,
        .restore(.init(state: .downloading), after: .crash),
    ]
}

/// Machines in each state, reached through legal events only.
enum Fixture {
    /// The steps that lead a fresh machine (favorable conditions) to `state`.
    ///
    /// Suspended fixtures hold exactly their own reason: `user` is paused under
    /// favorable conditions, `network` is offline, `cellularNotAllowed` has only
    /// cellular, `storage` is low on space, `awaitingForeground` needs a license in
    /// the background. None of them needs a license except `awaitingForeground`.
    static func steps(to state: DownloadState) -> [Step] {
        let downloading: [Step] = [.request(license: false), .slot]
        switch state {
        case .notDownloaded: return []
        case .requested: return [.request(license: false)]
        case .licensePreloaded: return [.preload]
        case .downloading: return downloading
        case .suspended(.user): return downloading + [.pause]
        case .suspended(.network): return downloading + [.conditions(.offline)]
        case .suspended(.cellularNotAllowed): return downloading + [.conditions(.cellularOnlyNotAllowed)]
        case .suspended(.storage): return downloading + [.conditions(.lowStorage)]
        case .suspended(.awaitingForeground): return [.request(license: true), .conditions(.background), .slot]
        case .downloaded: return downloading + [.complete]
        case .canceling: return downloading + [.cancel]
        case .failed: return downloading + [.fail(.httpStatus(500))]
        }
    }

    /// A machine in `state`; fails the test (by throwing) if a step is refused.
    static func machine(in state: DownloadState) throws -> DownloadStateMachine {
        var machine = DownloadStateMachine(conditions: .favorable)
        for step in steps(to: state) { _ = try step.apply(to: &machine) }
        guard machine.state == state else { throw FixtureError(wanted: state, got: machine.state) }
        return machine
    }

    struct FixtureError: Error {
        var wanted: DownloadState
        var got: DownloadState
    }
}

/// The events the transition table allows in each state (the specification the
/// tests hold the machine to, written independently of its code).
enum LegalEvents {
    static let inFlight: Set<DownloadEvent> = [
        .conditionsChanged, .userPaused, .userResumed, .licenseAcquired, .retryDue, .permanentFailure,
        .cancelRequested, .expired,
    ]

    static func of(_ state: DownloadState) -> Set<DownloadEvent> {
        switch state {
        case .notDownloaded: [.downloadRequested, .licensePreloaded, .conditionsChanged, .restored]
        case .requested: [
            .slotGranted, .userPaused, .userResumed, .permanentFailure, .cancelRequested, .conditionsChanged, .expired,
            .licenseAcquired,
        ]
        case .licensePreloaded: [.downloadRequested, .deleteRequested, .conditionsChanged, .expired]
        case .downloading: inFlight.union([.stalled, .completed])
        case .suspended: inFlight
        case .downloaded: [.deleteRequested, .conditionsChanged, .expired]
        case .canceling: [.cancelFinished, .cancelRequested, .conditionsChanged, .expired]
        case .failed: [.deleteRequested, .conditionsChanged, .expired]
        }
    }
}
