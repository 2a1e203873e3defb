import BenchCore
import Foundation
import OfflineDownloads

/// How `AgentRuntime` runs the engine in `bench agent`: where it stores, how the last
/// process ended, its timeouts and its (mis)behaviour. `bench agent`'s options map
/// one to one onto these fields; every field but the storage has a default.
public struct AgentOptions: Sendable {
    /// Directory of the engine's index and packages (created when missing).
    public var storageDirectory: String
    /// How the previous agent on this storage ended; `start(after:)` is told this.
    public var after: ProcessTermination
    /// How long bytes may stop before a download suspends. Default 4 s.
    public var stallTimeout: Duration
    /// Downloads that transfer at the same time. Default 2.
    public var maximumConcurrentDownloads: Int
    /// Seed of the engine's retry jitter. Default 1.
    public var seed: UInt64
    /// The deliberate misbehaviour, or nil for an honest app (default).
    public var misbehavior: AgentMisbehavior?
    /// Renew rentals automatically this long before they expire; nil (default): never.
    public var rentalRenewalLead: Duration?
    /// The network path before the first `setPath`. Default: no interface at all.
    public var initialPath: NetworkPath

    /// Creates options for `storageDirectory`.
    public init(
        storageDirectory: String, after: ProcessTermination = .clean, stallTimeout: Duration = .seconds(4),
        maximumConcurrentDownloads: Int = 2, seed: UInt64 = 1, misbehavior: AgentMisbehavior? = nil,
        rentalRenewalLead: Duration? = nil, initialPath: NetworkPath = NetworkPath(interfaces: [])
    ) {
        self.storageDirectory = storageDirectory
        self.after = after
        self.stallTimeout = stallTimeout
        self.maximumConcurrentDownloads = maximumConcurrentDownloads
        self.seed = seed
        self.misbehavior = misbehavior
        self.rentalRenewalLead = rentalRenewalLead
        self.initialPath = initialPath
    }

    /// The engine configuration these options stand for (everything else default).
    public var engineConfiguration: EngineConfiguration {
        var configuration = EngineConfiguration(
            storageDirectory: storageDirectory, maximumConcurrentDownloads: maximumConcurrentDownloads, seed: seed,
            rentalRenewalLead: rentalRenewalLead)
        configuration.transport.stallTimeout = stallTimeout
        return configuration
    }
}
