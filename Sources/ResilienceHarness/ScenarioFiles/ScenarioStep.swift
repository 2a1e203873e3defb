import AppProtocol
import BenchCore
import LinkConditioner

/// One step of a scenario file: the harness playing the network, the operating system
/// or the user, waiting on a trigger, or recording. Downloads are referred to by the
/// name their `request` gave them (`ScenarioRequest.name`), instants by the name a
/// `mark` gave them. docs/scenario-format.md lists each step's YAML form.
public enum ScenarioStep: Sendable, Hashable {
    // MARK: The network

    /// Brings an interface up.
    case up(InterfaceKind, pathUpdate: ScenarioPathUpdate = .published)
    /// Takes an interface down in `mode`.
    case down(InterfaceKind, mode: DownMode = .reset, pathUpdate: ScenarioPathUpdate = .published)
    /// Ends every connection open on an interface that stays up: RST (`reset`) or FIN
    /// (`close`) mid-body, as a middlebox or a flaky access point would.
    case cut(InterfaceKind, ConnectionCut = .reset)
    /// Waits until the app was given a path with exactly these interfaces up.
    case waitForPath([InterfaceKind], timeout: Duration = ScenarioStep.pathTimeout)
    /// Makes the license endpoint answer this late from now on.
    case slowLicenseServer(Duration)
    /// Makes the origin commit an HTTP fault for a while (`ScenarioOriginFault`).
    case originFault(ScenarioOriginFault)

    // MARK: The app

    /// Launches the app (the first launch, or after a clean shutdown).
    case launch
    /// Brings the app to the foreground.
    case foreground
    /// Sends the app to the background.
    case background
    /// Asks the app to get ready for the background.
    case prepareForBackground
    /// Kills the app (SIGKILL) and relaunches it told it ended as `kind`; in the
    /// foreground, or not, or as it was (nil).
    case kill(RelaunchKind, inForeground: Bool? = nil)

    // MARK: The user

    /// Requests a download.
    case request(ScenarioRequest)
    /// Pauses, resumes, cancels or deletes a download.
    case user(UserAction, download: String)
    /// Pauses, resumes or cancels a download only while it is in flight (not downloaded,
    /// failed or gone); a refusal because it settled meanwhile is noted, not an error.
    case userIfInFlight(UserAction, download: String)
    /// The user's cellular setting, for downloads requested after it.
    case setAllowsCellular(Bool)
    /// When every download requested so far has settled: requests the first of `videos`
    /// not requested yet (named as the video) and waits until `segments` of its segments
    /// are stored (or it settles). Does nothing otherwise. So that a kill that follows
    /// lands during a download even when the others finished early.
    case requestSpare([String], segments: Int = 2)
    /// When the download has not settled: a note, a cancel, and a wait (30 s) until it
    /// is gone. Does nothing otherwise.
    case cancelIfUnsettled(String)

    // MARK: Waits

    /// Waits until a trigger holds.
    case wait(ScenarioWait)
    /// Waits until the downloads are downloaded or failed.
    case waitSettled(ScenarioDownloads, timeout: Duration = ScenarioStep.settleTimeout)
    /// Waits until the origin has begun answering a media-segment request (bytes in
    /// flight); gives up with a note after `timeout`.
    case waitForMediaResponse(timeout: Duration = ScenarioStep.mediaResponseTimeout)
    /// Waits until the origin has begun answering, since the step began, a request whose
    /// path matches the glob (its response in progress, or logged); fails after `timeout`.
    /// What the origin saw: a playlist or a license on its way, whatever the app says.
    case waitForRequest(String, timeout: Duration = ScenarioStep.requestTimeout)
    /// Sleeps.
    case hold(Duration)
    /// Remembers the current instant under a name.
    case mark(String)
    /// Sleeps until a marked instant plus an offset (at once when it is past).
    case holdUntil(ScenarioHoldUntil)

    // MARK: Records

    /// A note for the report.
    case note(String)
    /// Inspects downloads (what the app says it stored, and the harness's read of it).
    case inspect(ScenarioDownloads)

    /// Default timeouts.
    public static let pathTimeout = Duration.seconds(10)
    public static let requestTimeout = Duration.seconds(60)
    public static let settleTimeout = Duration.seconds(180)
    public static let mediaResponseTimeout = Duration.seconds(10)
    public static let waitTimeout = Duration.seconds(120)
    /// How long `cancelIfUnsettled` waits for the cancelled download to be gone.
    public static let goneTimeout = Duration.seconds(30)
}

/// Whether the conditioner publishes the new path when an interface changes.
public enum ScenarioPathUpdate: Sendable, Hashable {
    /// At once.
    case published
    /// Never: only a stall timeout can tell the app.
    case withheld
    /// After a delay.
    case late(Duration)

    /// The conditioner's policy.
    var policy: PathUpdatePolicy {
        switch self {
        case .published: .immediate
        case .withheld: .withheld
        case .late(let delay): .delayed(delay)
        }
    }
}

/// A download request.
public struct ScenarioRequest: Sendable, Hashable {
    /// The catalog video (`clear`, `protected`, `large`…).
    public var video: String
    /// The name later steps use for it; the video's id by default.
    public var name: String
    /// A rental of this many seconds; nil: a purchase.
    public var rentalSeconds: Int?
    /// Whether it may use cellular; nil: the user's setting (`allowsCellular`).
    public var allowsCellular: Bool?

    /// A request of `video`, named `name` (the video's id when nil).
    public init(_ video: String, name: String? = nil, rentalSeconds: Int? = nil, allowsCellular: Bool? = nil) {
        self.video = video
        self.name = name ?? video
        self.rentalSeconds = rentalSeconds
        self.allowsCellular = allowsCellular
    }
}

/// Downloads a step applies to: every one requested so far (in request order), or
/// those named.
public enum ScenarioDownloads: Sendable, Hashable {
    case all
    case named([String])
}

/// A wait on a trigger.
public struct ScenarioWait: Sendable, Hashable {
    public var until: ScenarioTrigger
    /// What the trace notes when the trigger is met; a description of the trigger when nil.
    public var label: String?
    public var timeout: Duration
    /// When true, a wait that ends without its trigger (timed out) does not stop the
    /// scenario: the properties judge what happened.
    public var optional: Bool

    /// A wait until `until`.
    public init(until: ScenarioTrigger, label: String? = nil, timeout: Duration = ScenarioStep.waitTimeout, optional: Bool = false) {
        self.until = until
        self.label = label
        self.timeout = timeout
        self.optional = optional
    }
}

/// Sleeping until a marked instant plus an offset.
public struct ScenarioHoldUntil: Sendable, Hashable {
    /// The offset from the mark: a duration, or the profile's duration.
    public enum Offset: Sendable, Hashable {
        case duration(Duration)
        case profileDuration
    }

    public var mark: String
    public var plus: Offset
    /// Caps `plus`.
    public var atMost: Duration?
    /// Stops early once these downloads have settled (checked every 250 ms).
    public var orSettled: ScenarioDownloads?

    public init(mark: String, plus: Offset = .duration(.zero), atMost: Duration? = nil, orSettled: ScenarioDownloads? = nil) {
        self.mark = mark
        self.plus = plus
        self.atMost = atMost
        self.orSettled = orSettled
    }
}
