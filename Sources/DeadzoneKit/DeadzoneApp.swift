import Foundation

/// What an app implements to be judged by the Deadzone bench: one method per command of
/// the app protocol (docs/app-protocol.md, version 1). `DeadzoneKit.run(_:)` connects to
/// the bench, calls these, and answers each command with its reply.
///
/// The kit calls the methods one at a time, in the order the commands came, on its own
/// command thread, except `prepareForBackground`, `cancel` and `delete`, which may wait
/// on the network and each get a thread of their own (the commands after them are not
/// held). A method returns once the command took effect; long work (the downloads) runs
/// on the app's own queues. A method that throws refuses its command: the reply carries
/// the error's description.
public protocol DeadzoneApp: AnyObject, Sendable {
    /// `hello`: the app starts on `launch.storage` (its own for the whole scenario; it
    /// survives kills) and says who it is. `events` is where it reports what happens,
    /// from now on and from any thread.
    func launch(_ launch: Launch, events: DeadzoneEvents) throws -> AppDescription
    /// Called once the hello reply and the `launched` event are written: the place to
    /// restore the downloads the storage holds (and report a force-quit's failures).
    func didLaunch()
    /// `setPath`: the interfaces up now (WiFi first; empty when nothing is up).
    func setPath(_ interfaces: [NetworkInterface]) throws
    /// `setForeground`.
    func setForeground(_ foreground: Bool) throws
    /// `prepareForBackground`: acquire the licenses downloads still need, and answer, per
    /// download left without one, why.
    func prepareForBackground() throws -> [String: String]
    /// `setAllowsCellular`: the user's setting, for downloads requested after it.
    func setAllowsCellular(_ allowed: Bool) throws
    /// `request`: a new download; answers its id.
    func request(_ request: DownloadRequest) throws -> String
    /// `pause`.
    func pause(download: String) throws
    /// `resume`.
    func resume(download: String) throws
    /// `cancel`: stop a download in flight and leave nothing of it behind.
    func cancel(download: String) throws
    /// `delete`: remove a stored download.
    func delete(download: String) throws
    /// `inspect`: what the app says of one download (the playback check).
    func inspect(download: String) throws -> Inspection
    /// `shutdown`: the kit replies and the process exits with status 0 once this returns.
    func shutdown()
}

extension DeadzoneApp {
    /// Nothing to restore by default.
    public func didLaunch() {}
}

/// A refusal in words: throw it from a command method to answer `error: "<why>"`.
public struct DeadzoneRefusal: Error, CustomStringConvertible, Sendable {
    /// Why the app refused the command.
    public var description: String
    /// A refusal saying `why`.
    public init(_ why: String) { description = why }
}
