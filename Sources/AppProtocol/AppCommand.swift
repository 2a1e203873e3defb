import BenchCore

/// What the harness, playing the operating system and the user, tells the app. Each is
/// sent in an `AppRequest` with an id, and answered by one `AppReply` with that id.
public enum AppCommand: Sendable, Equatable {
    /// The first command of every process: the harness's protocol version, the
    /// directory the app keeps everything in (it survives kills and relaunches), and how
    /// the previous process on that directory ended, and, when the scenarios' origin
    /// serves HTTPS (`bench --https`), the absolute path of the PEM file of the run's
    /// certificate authority, the one the app must trust (`caFile`, nil over plain HTTP).
    /// Answered with `AppHello`.
    case hello(protocol: Int, storage: String, after: RelaunchKind, caFile: String? = nil)
    /// The network path changed: the interfaces now up, WiFi first, each with the
    /// `host:port` to connect to in order to send through it (the conditioner's listener).
    case setPath(NetworkPath)
    /// The app moved to the foreground (`true`) or the background.
    case setForeground(Bool)
    /// The app is about to go to the background: finish the license exchanges under
    /// way or due. Answered with the downloads that still have no license.
    case prepareForBackground
    /// The user changed the cellular setting; it applies to downloads requested after it.
    case setAllowsCellular(Bool)
    /// The user asked for a download. Answered with the download's id (a token).
    case request(AppDownloadRequest)
    /// User actions on a download, by its id.
    case pause(download: String)
    case resume(download: String)
    case cancel(download: String)
    case delete(download: String)
    /// What the app knows of a download and where its offline package is. Answered
    /// with an `AppInspection`.
    case inspect(download: String)
    /// Shut down cleanly, answer, and exit 0.
    case shutdown

    /// The command's name on the wire, e.g. `setPath`.
    public var name: String {
        switch self {
        case .hello: "hello"
        case .setPath: "setPath"
        case .setForeground: "setForeground"
        case .prepareForBackground: "prepareForBackground"
        case .setAllowsCellular: "setAllowsCellular"
        case .request: "request"
        case .pause: "pause"
        case .resume: "resume"
        case .cancel: "cancel"
        case .delete: "delete"
        case .inspect: "inspect"
        case .shutdown: "shutdown"
        }
    }
}

/// One command line: `{"type":"command","id":1,"name":"pause","download":"…"}`.
public struct AppRequest: Sendable, Equatable {
    /// Chosen by the harness, unique within one app process; the reply carries it back.
    public var id: Int
    public var command: AppCommand

    /// A request.
    public init(id: Int, command: AppCommand) {
        self.id = id
        self.command = command
    }
}

/// A download the user asked for, with what the app knows of the video: its catalog
/// entry (`GET /videos/{id}`) and the URL it was read from, against which relative
/// URLs in it resolve.
public struct AppDownloadRequest: Sendable, Hashable {
    public var video: VideoDocument
    public var catalogURL: String
    /// nil: the app's current setting (`setAllowsCellular`).
    public var allowsCellular: Bool?
    /// A rental of this many seconds; nil: a purchase.
    public var rentalSeconds: Int?
    /// Alternate renditions by language; empty: the default ones.
    public var audioLanguages: [String]
    public var subtitleLanguages: [String]

    /// A request for `video`.
    public init(
        video: VideoDocument, catalogURL: String, allowsCellular: Bool? = nil, rentalSeconds: Int? = nil,
        audioLanguages: [String] = [], subtitleLanguages: [String] = []
    ) {
        self.video = video
        self.catalogURL = catalogURL
        self.allowsCellular = allowsCellular
        self.rentalSeconds = rentalSeconds
        self.audioLanguages = audioLanguages
        self.subtitleLanguages = subtitleLanguages
    }
}
