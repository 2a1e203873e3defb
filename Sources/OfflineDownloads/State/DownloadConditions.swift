import BenchCore

/// The conditions a download needs to transfer, in the manner of Media3's
/// `Requirements`: the facts outside the download that can suspend it.
///
/// A value the download manager computes (from the network path, the download's
/// cellular setting, free space and the app's lifecycle) and feeds to each state
/// machine with `conditionsChanged(_:)`. The user's pause is deliberately not part
/// of it: it belongs to the download and is kept by the state machine, so that a
/// change of conditions can never undo a pause, nor a resume ignore an outage.
public struct DownloadConditions: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The interface the download may use, or why it may use none.
    public var network: InterfaceChoice
    /// Free space is above the configured cushion.
    public var hasStorage: Bool
    /// The app is in the foreground, so license exchanges are possible.
    public var isForeground: Bool

    /// Creates conditions; by default storage is fine and the app is in the foreground.
    public init(network: InterfaceChoice, hasStorage: Bool = true, isForeground: Bool = true) {
        self.network = network
        self.hasStorage = hasStorage
        self.isForeground = isForeground
    }

    /// WiFi up, storage fine, app in the foreground: nothing stands in the way.
    public static let favorable = DownloadConditions(network: .use(.wifi))

    /// `network use(wifi), storage ok, foreground`.
    public var description: String {
        "network \(network), storage \(hasStorage ? "ok" : "low"), \(isForeground ? "foreground" : "background")"
    }
}
