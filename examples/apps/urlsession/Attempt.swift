import DeadzoneKit
import Foundation

/// Requests through one network interface until the first error or abort, abortable from
/// any thread: `abort` (pause, cancel, the interface went away) stops what it is doing and
/// makes it start nothing more; `cut` stops the transfer under way as a network error.
/// Either way, once it returns no byte of that transfer reaches the disk.
// @unchecked: `isAborted`, `isCut` and `current` are read and written only under `lock`.
final class Attempt: @unchecked Sendable {
    let interface: NetworkInterface
    private let lock = NSLock()
    private var isAborted = false
    private var isCut = false
    private var current: Transfer?

    init(interface: NetworkInterface) { self.interface = interface }

    var aborted: Bool { lock.withLock { isAborted } }
    var wasCut: Bool { lock.withLock { isCut } }

    /// Ends the attempt: what it is fetching stops, and it starts nothing more.
    func abort() {
        let transfer = lock.withLock {
            isAborted = true
            return current
        }
        transfer?.stop()
    }

    /// Stops the transfer under way without aborting: it fails as a network error
    /// (another lane found the network gone, or it stalled).
    func cut() {
        let transfer = lock.withLock {
            isCut = true
            return current
        }
        transfer?.stop()
    }

    /// Makes `transfer` the one under way; false when the attempt was aborted already.
    func begin(_ transfer: Transfer) -> Bool {
        lock.withLock {
            guard !isAborted else { return false }
            current = transfer
            return true
        }
    }

    func end(_ transfer: Transfer) {
        lock.withLock { if current === transfer { current = nil } }
    }
}
