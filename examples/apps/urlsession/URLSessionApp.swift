import DeadzoneKit
import Foundation

/// The app the bench judges: an HLS offline downloader on URLSession. Each command of the
/// app protocol goes to the engine, which exists once `hello` named the storage.
// @unchecked: `started` is read and written only under `lock`.
final class URLSessionApp: DeadzoneApp, @unchecked Sendable {
    static let name = "deadzone-urlsession-example 1.0"
    private let lock = NSLock()
    private var started: Engine?

    private var engine: Engine {
        get throws {
            guard let engine = lock.withLock({ started }) else { throw DeadzoneRefusal("hello first") }
            return engine
        }
    }

    func launch(_ launch: Launch, events: DeadzoneEvents) throws -> AppDescription {
        let store = try Store(storage: launch.storage)
        lock.withLock { started = Engine(store: store, events: events, after: launch.after) }
        return AppDescription(name: Self.name, capabilities: Set(Capability.allCases))
    }

    func didLaunch() { try? engine.restore() }
    func setPath(_ interfaces: [NetworkInterface]) throws { try engine.setPath(interfaces) }
    func setForeground(_ foreground: Bool) throws { try engine.setForeground(foreground) }
    func prepareForBackground() throws -> [String: String] { try engine.prepareForBackground() }
    func setAllowsCellular(_ allowed: Bool) throws { try engine.setAllowsCellular(allowed) }
    func request(_ request: DownloadRequest) throws -> String { try engine.request(request) }
    func pause(download: String) throws { try engine.pause(download) }
    func resume(download: String) throws { try engine.resume(download) }
    func cancel(download: String) throws { try engine.remove(download) }
    func delete(download: String) throws { try engine.remove(download) }
    func inspect(download: String) throws -> Inspection { try engine.inspect(download) }
    func shutdown() {}
}
