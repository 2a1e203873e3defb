/// How the previous process ended, as the download manager learns it at start-up
/// (from its own clean-shutdown marker and the platform's exit reason).
///
/// Decides what `DownloadStateMachine.restored(_:after:)` does with a download that
/// was in flight (downloading or suspended) when the process ended. The split
/// follows the SDK guides (Brightcove, "Downloading Videos in the Background"):
/// downloads survive crashes and memory-pressure kills, but not a force-quit from
/// the app switcher nor a reboot while the app was suspended.
public enum ProcessTermination: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The engine shut down in an orderly way.
    case clean
    /// The process crashed.
    case crash
    /// The system ended the process for memory, in the foreground or while suspended.
    case memoryPressure
    /// The user swiped the app away in the app switcher.
    case userForceQuit
    /// The device rebooted while the app was suspended in the background.
    case rebootWhileSuspended

    /// Whether downloads in flight at that moment are lost and must be reported failed.
    public var losesDownloadsInFlight: Bool {
        self == .userForceQuit || self == .rebootWhileSuspended
    }

    /// The raw value, e.g. `userForceQuit`.
    public var description: String { rawValue }
}

/// Why a download failed: the cause kept with the `failed` state and reported to the app.
///
/// Only permanent causes end up here. Network trouble never does (it suspends), and
/// transient errors are retried by the driver (see `RetryBackoff`) until it gives up.
public enum DownloadFailure: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The driver gave up after retrying a transient error (e.g. HTTP 503) `attempts` times.
    case retriesExhausted(attempts: Int, lastError: String)
    /// The origin answered with a status retrying cannot fix (e.g. 403, 404, 410).
    case httpStatus(Int)
    /// The license exchange was refused for a reason other than the app being in the background.
    case license(String)
    /// The playlists cannot be downloaded as asked (unparseable, no video variant, no such language).
    case playlist(String)
    /// The media could not be stored for a reason other than free space (an I/O error).
    case storage(String)
    /// The process ended in a way that loses downloads in flight (force-quit, reboot while suspended).
    case interrupted(ProcessTermination)
    /// The index says `failed` but holds no cause (an index written by an older engine, or damaged).
    case unrecorded

    /// One sentence for people, saying what happened and what to do.
    public var description: String {
        switch self {
        case let .retriesExhausted(attempts, lastError):
            "gave up after \(attempts) attempts (last error: \(lastError)); delete the download and request it again"
        case .httpStatus(let status): "the server answered HTTP \(status); delete the download"
        case .license(let reason): "the license was refused: \(reason)"
        case .playlist(let reason): "the playlist cannot be downloaded: \(reason)"
        case .storage(let reason): "the download could not be stored: \(reason)"
        case .interrupted(let termination):
            "the download was interrupted (\(termination)) and cannot be recovered; delete it and request it again"
        case .unrecorded: "the download failed; the cause was not recorded"
        }
    }
}
