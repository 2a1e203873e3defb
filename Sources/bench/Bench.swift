import ArgumentParser
import BenchCore
import Foundation

@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Deadzone: a network-condition simulator and resilience bench for HLS offline downloads.",
        subcommands: [
            RunCommand.self, GateCommand.self, MatrixCommand.self, ChaosCommand.self, MergeCommand.self, ScenariosCommand.self, ScenarioCommand.self, SessionCommand.self,
            ReportCommand.self, CompareCommand.self, ProxyCommand.self, OriginCommand.self, RecordCommand.self, DownloadCommand.self, ProfilesCommand.self, ProfileCommand.self,
            PerfCommand.self, AgentAppCommand.self,
        ],
        defaultSubcommand: RunCommand.self
    )

    /// Runs the command; a command line that does not parse or validate exits 2 (bad
    /// input, as every `bench` command documents) instead of the argument parser's 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.writeSurvivingSignals(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
