import ArgumentParser
import BenchCore
import Foundation
import EngineAgent

/// `bench agent`: Deadzone's engine as an app of the app protocol, what the resilience
/// harness runs by default.
struct AgentAppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "The app for the resilience harness: Deadzone's download engine driven over JSON lines.",
        discussion: """
            Speaks the app protocol (docs/app-protocol.md) on stdin and stdout: the first command \
            must be hello, which names the storage directory and how the previous process ended; \
            then one reply per command and events stamped with the host's monotonic clock. \
            Diagnostics go to stderr. Starts with no network until a setPath command arrives. \
            Exits 0 on a shutdown command or at the end of stdin, 2 for bad options or another \
            protocol version. The harness launches it; run by hand only to debug the protocol.
            Example: printf '%s\\n' '{"type":"command","id":0,"name":"hello","protocol":1,"storage":"/tmp/app","after":"clean"}' \
            '{"type":"command","id":1,"name":"shutdown"}' | swift run bench agent
            """
    )

    @Option(help: "Seconds without bytes before a download suspends.")
    var stallTimeout: Double = 4

    @Option(help: "Downloads that transfer at the same time.")
    var concurrent: Int = 2

    @Option(help: "Seed of the engine's retry jitter.")
    var seed: UInt64 = 1

    @Option(help: "Misbehave on purpose: \(Self.misbehaviors).")
    var misbehave: String?

    @Option(help: "Renew rentals automatically this many seconds before they expire.")
    var renewalLead: Double?

    @Flag(help: "Print each --misbehave variant and the property it must make fail, one per line, and exit.")
    var listMisbehaviors = false

    func validate() throws {
        if let misbehave, AgentMisbehavior(rawValue: misbehave) == nil {
            throw ValidationError("--misbehave must be one of \(Self.misbehaviors)")
        }
        guard stallTimeout > 0, stallTimeout.isFinite else {
            throw ValidationError("--stall-timeout must be a positive number of seconds")
        }
        guard concurrent >= 1 else { throw ValidationError("--concurrent must be at least 1") }
        if let renewalLead, !(renewalLead > 0 && renewalLead.isFinite) {
            throw ValidationError("--renewal-lead must be a positive number of seconds")
        }
    }

    private static var misbehaviors: String { AgentMisbehavior.allCases.map(\.rawValue).joined(separator: ", ") }

    func run() async throws {
        if listMisbehaviors {
            for misbehavior in AgentMisbehavior.allCases { print("\(misbehavior.rawValue) \(misbehavior.brokenProperty)") }
            return
        }
        let options = AgentOptions(
            stallTimeout: .milliseconds(Int64(stallTimeout * 1000)), maximumConcurrentDownloads: concurrent, seed: seed,
            misbehavior: misbehave.flatMap(AgentMisbehavior.init(rawValue:)),
            rentalRenewalLead: renewalLead.map { .milliseconds(Int64($0 * 1000)) })
        let status: Int32
        do { status = try await AgentRuntime.run(options: options) } catch { exitBadInput("the agent cannot start: \(error)") }
        if status != 0 { throw ExitCode(status) }
    }
}
