/// The events a `DownloadStateMachine` accepts: one per `mutating func`, named as facts.
public enum DownloadEvent: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case downloadRequested
    case licensePreloaded
    case licenseAcquired
    case slotGranted
    case conditionsChanged
    case stalled
    case retryDue
    case userPaused
    case userResumed
    case completed
    case permanentFailure
    case cancelRequested
    case cancelFinished
    case deleteRequested
    case expired
    case restored

    /// The raw value, e.g. `slotGranted`.
    public var description: String { rawValue }
}

/// An event that the transition table does not allow in the current state.
///
/// Thrown by `DownloadStateMachine`'s event functions; the machine is left exactly
/// as it was. Public API calls that end here (e.g. `delete` while downloading) are
/// answered with this error; internal events that end here are races the driver
/// may log and ignore (e.g. a retry timer that fires after a cancel).
public struct IllegalTransition: Error, Sendable, Hashable, CustomStringConvertible {
    /// The state the machine was, and still is, in.
    public var state: DownloadState
    /// The refused event.
    public var event: DownloadEvent

    /// Creates a refusal of `event` in `state`.
    public init(state: DownloadState, event: DownloadEvent) {
        self.state = state
        self.event = event
    }

    /// `cannot deleteRequested while downloading: cancel the download first`.
    public var description: String {
        let text = "cannot \(event) while \(state)"
        return hint.map { "\(text): \($0)" } ?? text
    }

    /// What the caller can do instead, for the refusals a user can cause.
    public var hint: String? {
        switch (event, state) {
        case (.deleteRequested, .requested), (.deleteRequested, .downloading), (.deleteRequested, .suspended):
            "cancel the download first"
        case (.deleteRequested, .canceling): "the download is already being removed"
        case (.downloadRequested, .failed): "delete the failed download, then request it again"
        case (.downloadRequested, _), (.licensePreloaded, _):
            state == .notDownloaded ? nil : "the download already exists; delete it first"
        case (.cancelRequested, .licensePreloaded), (.cancelRequested, .downloaded), (.cancelRequested, .failed):
            "nothing is in flight; delete the download instead"
        case (.userPaused, _), (.userResumed, _): "only a requested, downloading or suspended download can be paused or resumed"
        default: nil
        }
    }
}
