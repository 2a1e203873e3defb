import BenchCore
import Foundation
import OfflineDownloads

/// How `AgentRuntime` runs Deadzone's engine in `bench agent`: its timeouts and its
/// (mis)behaviour. `bench agent`'s options map one to one onto these fields. Where it
/// stores and how the last process ended come from the harness's `hello`.
public struct AgentOptions: Sendable {
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
    /// The PEM file of the certificate authority HTTPS origins are checked against, in
    /// place of the system's: hello's `caFile` (`bench --https`), not an option of
    /// `bench agent`. nil (default): the system's trust roots.
    public var caFile: String?

    /// Creates options; every field has its default.
    public init(
        stallTimeout: Duration = .seconds(4), maximumConcurrentDownloads: Int = 2, seed: UInt64 = 1,
        misbehavior: AgentMisbehavior? = nil, rentalRenewalLead: Duration? = nil,
        initialPath: NetworkPath = NetworkPath(interfaces: [])
    ) {
        self.stallTimeout = stallTimeout
        self.maximumConcurrentDownloads = maximumConcurrentDownloads
        self.seed = seed
        self.misbehavior = misbehavior
        self.rentalRenewalLead = rentalRenewalLead
        self.initialPath = initialPath
    }

    /// The engine configuration these options stand for on `storage` (everything else default).
    public func engineConfiguration(storage: String) -> EngineConfiguration {
        var configuration = EngineConfiguration(
            storageDirectory: storage, maximumConcurrentDownloads: maximumConcurrentDownloads, seed: seed,
            rentalRenewalLead: rentalRenewalLead)
        configuration.transport.stallTimeout = stallTimeout
        configuration.transport.trustedCAFile = caFile
        // The misbehaving agent's test hook, off for every other app.
        configuration.transferSkipsLicenseGate = misbehavior == .segmentsBeforeLicense
        configuration.sabotage = EngineSabotage(
            dropsInitSections: misbehavior == .dropsInitSections,
            resumesByteRangesFromFileStart: misbehavior == .byteRangeFromZero)
        if misbehavior == .noBackoff {
            configuration.retry.base = .milliseconds(1)
            configuration.retry.cap = .milliseconds(1)
        }
        if misbehavior == .failOnServerError { configuration.retry.maximumAttempts = 1 }
        return configuration
    }
}

extension AgentOptions {
    /// The `bench agent` arguments that stand for these options (after the executable):
    /// what the harness runs as Deadzone's app.
    public var benchArguments: [String] {
        var arguments = [
            "agent", "--stall-timeout", String(Double(stallTimeout.nanoseconds) / 1e9), "--seed", String(seed),
            "--concurrent", String(maximumConcurrentDownloads),
        ]
        if let misbehavior { arguments += ["--misbehave", misbehavior.rawValue] }
        if let rentalRenewalLead { arguments += ["--renewal-lead", String(Double(rentalRenewalLead.nanoseconds) / 1e9)] }
        return arguments
    }
}
