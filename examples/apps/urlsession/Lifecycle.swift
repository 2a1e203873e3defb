import DeadzoneKit

/// The offline-download guides' state table, as this app follows it.
enum Lifecycle {
    static let suspended: Set<DownloadState> = [
        .suspendedUser, .suspendedNetwork, .suspendedCellularNotAllowed, .suspendedStorage, .suspendedAwaitingForeground,
    ]
    /// States of a download whose transfer is not over.
    static let inFlight: Set<DownloadState> = suspended.union([.requested, .downloading])

    /// Whether `from → to` is an edge of the table (a change to the same state never is).
    static func isLegal(from: DownloadState, to: DownloadState) -> Bool {
        guard from != to else { return false }
        switch from {
        case .notDownloaded: return to == .requested || to == .licensePreloaded
        case .licensePreloaded: return to == .requested || to == .notDownloaded
        case .requested: return to == .downloading || suspended.contains(to) || [.failed, .canceling, .notDownloaded].contains(to)
        case .downloading: return suspended.contains(to) || [.downloaded, .failed, .canceling, .notDownloaded].contains(to)
        case .suspendedUser, .suspendedNetwork, .suspendedCellularNotAllowed, .suspendedStorage, .suspendedAwaitingForeground:
            return to == .downloading || suspended.contains(to) || [.failed, .canceling, .notDownloaded].contains(to)
        case .downloaded, .failed, .canceling: return to == .notDownloaded
        }
    }
}

extension DownloadState {
    var isInFlight: Bool { Lifecycle.inFlight.contains(self) }
}

/// Retries back off exponentially with full jitter: after the n-th failure in a row, a
/// delay uniform in 0…min(cap, first × 2ⁿ⁻¹) (docs/app-protocol.md, "Retries back off").
struct Backoff: Sendable {
    static let first = 0.5
    static let cap = 8.0
    private(set) var failures = 0

    /// The delay before the next try, after one more failure.
    mutating func next() -> Double {
        failures += 1
        let bound = min(Self.cap, Self.first * Double(1 << min(failures - 1, 16)))
        return Double.random(in: 0...bound)
    }

    /// Bytes came (or the path changed): the next failure is the first again.
    mutating func reset() { failures = 0 }
}
