import ArgumentParser
import BenchCore
import Foundation
import OfflineDownloads
import ResilienceHarness

/// `bench agent`: the app for the resilience harness. (Named `AgentAppCommand` because
/// `AgentCommand` is the protocol's command type in ResilienceHarness.)
struct AgentAppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "The app for the resilience harness: Deadzone's download engine driven over JSON lines.",
        discussion: """
            Reads one AgentRequest per line on stdin and writes one AgentMessage per line on stdout \
            (events stamped with the host's monotonic clock, and one reply per request); diagnostics \
            go to stderr. Starts with no network until a setPath request arrives. Exits 0 on a \
            shutdown request or at the end of stdin, 2 for bad options. The harness (AgentProcess) \
            launches it; run by hand only to debug the protocol.
            Example: echo '{"id":1,"command":{"shutdown":{}}}' | swift run bench agent --storage /tmp/app
            """
    )

    @Option(help: "Directory of the engine's index and packages.")
    var storage: String

    @Option(help: "How the previous agent on this storage ended: \(Self.terminations).")
    var after: String = "clean"

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

    func validate() throws {
        guard ProcessTermination(rawValue: after) != nil else {
            throw ValidationError("--after must be one of \(Self.terminations)")
        }
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
        guard !storage.isEmpty else { throw ValidationError("--storage must name a directory") }
    }

    private static var terminations: String { ProcessTermination.allCases.map(\.rawValue).joined(separator: ", ") }
    private static var misbehaviors: String { AgentMisbehavior.allCases.map(\.rawValue).joined(separator: ", ") }

    func run() async throws {
        let options = AgentOptions(
            storageDirectory: storage, after: ProcessTermination(rawValue: after) ?? .clean,
            stallTimeout: .milliseconds(Int64(stallTimeout * 1000)), maximumConcurrentDownloads: concurrent, seed: seed,
            misbehavior: misbehave.flatMap(AgentMisbehavior.init(rawValue:)),
            rentalRenewalLead: renewalLead.map { .milliseconds(Int64($0 * 1000)) })
        let status: Int32
        do { status = try await AgentRuntime.run(options: options) } catch {
            FileHandle.standardError.writeSurvivingSignals(Data("error: the agent cannot start on \(storage): \(error)\n".utf8))
            throw ExitCode(2)
        }
        if status != 0 { throw ExitCode(status) }
    }
}
