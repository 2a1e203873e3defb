import ArgumentParser

@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Deadzone: a network-condition simulator and resilience bench for HLS offline downloads.",
        subcommands: [
            RunCommand.self, GateCommand.self, ScenariosCommand.self, ReportCommand.self,
            ProxyCommand.self, OriginCommand.self, DownloadCommand.self, ProfilesCommand.self, ProfileCommand.self,
            PerfCommand.self, AgentAppCommand.self,
        ],
        defaultSubcommand: RunCommand.self
    )
}
