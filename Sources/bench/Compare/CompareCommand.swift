import ArgumentParser
import BenchCore
import BenchReports
import ClientComparison
import FixtureOrigin
import Foundation
import ResilienceHarness

/// `bench compare`: downloaders as black boxes under the same bad network.
struct CompareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Run downloaders (ffmpeg, yt-dlp, streamlink, Deadzone's engine, your own) under the same faults and compare.",
        discussion: """
            Each client downloads one video from a fixture origin through a link conditioner with the profile's \
            links, once per fault mode (the same seed for every client): \(FaultMode.allCases.map(\.rawValue).joined(separator: ", ")). \
            The harness records what each did (exit status, time, bytes per interface, wasted bytes, requests and \
            connection attempts during outages, what a rerun after a kill fetched again) and judges its output \
            against what the origin served: byte for byte, or with ffprobe and a full decode for remuxed media. \
            A client that exits with success but leaves missing or corrupt content is reported as silent data loss.
            Built-in clients: \(BuiltInClients.all.map(\.name).joined(separator: ", ")) (those not installed are \
            reported with how to install them). Add your own with --client NAME='COMMAND' or --clients-file; \
            placeholders: \(ClientPlaceholder.allCases.map { "{\($0.rawValue)} \($0.meaning)" }.joined(separator: "; ")).
            Writes report.json, report.html, junit.xml and trace.jsonl. Exit status: 0 when the comparison ran, \
            1 when Deadzone's engine (client deadzone) did not come out ok in a mode or an --expect did not hold, \
            2 for bad input.
            Example: swift run bench compare --profile Profiles/flaky-wifi.yaml --clients ffmpeg,deadzone
            """
    )

    @Option(help: "The network profile (YAML) whose WiFi and cellular links are the base links.")
    var profile: String?

    @Option(help: "Clients to run, comma-separated (built-in names and those of --client/--clients-file; default: every built-in).")
    var clients: String?

    @Option(name: .customLong("client"), help: "A client of your own: NAME='COMMAND' with placeholders (repeatable).")
    var extraClients: [String] = []

    @Option(help: "A YAML file of client definitions (see docs/comparison.md).")
    var clientsFile: String?

    @Option(help: "Fault modes, comma-separated (default: all).")
    var modes: String?

    @Option(help: "Content: real (ffmpeg-made H.264/AAC, what ffmpeg, yt-dlp and streamlink read) or synthetic (seeded bytes).")
    var media: MediaKind = .real

    @Option(help: "Directory of ffmpeg-made segments (--media real); default ~/.cache/deadzone/media.")
    var mediaCache: String?

    @Option(help: "Seed of the run (default: the profile's); each mode uses seed + its index.")
    var seed: UInt64?

    @Option(help: "Report directory (default: Reports/<timestamp>-compare-<profile>/).")
    var out: String?

    @Option(name: .customLong("time-limit"), help: "Seconds one run may take before the client is killed and reported hung.")
    var timeLimit: Double = 150

    @Option(help: "The video's duration in seconds.")
    var videoSeconds: Double = 36

    @Option(help: "The segments' target duration in seconds.")
    var segmentSeconds: Double = 6

    @Option(help: "How long one whole download should take on the base WiFi link, seconds (sizes the bitrate).")
    var targetSeconds: Double = 12

    @Flag(help: "Keep each run's work directory (client output and logs) in the temp directory.")
    var keepWork = false

    @Flag(name: .customLong("no-connect-trace"), help: "Do not trace connection attempts with strace.")
    var noConnectTrace = false

    @Option(name: .customLong("expect"), help: "An outcome a run must have, CLIENT:MODE=OUTCOME (MODE may be *), e.g. ffmpeg:clean=ok (repeatable).")
    var expectations: [String] = []

    @Flag(help: "List the clients (and whether each is installed) and the fault modes, then exit.")
    var list = false

    @Flag(help: "Print the report as JSON on stdout (progress goes to stderr).")
    var json = false

    func validate() throws {
        guard list || profile != nil else { throw ValidationError("--profile is required, e.g. --profile Profiles/flaky-wifi.yaml") }
        guard timeLimit > 0 else { throw ValidationError("--time-limit must be a positive number of seconds") }
        guard videoSeconds >= 2, videoSeconds <= 3600 else { throw ValidationError("--video-seconds must be within 2...3600") }
        guard targetSeconds > 0, targetSeconds <= 3600 else { throw ValidationError("--target-seconds must be within (0, 3600]") }
        guard segmentSeconds >= 1, segmentSeconds <= 60 else { throw ValidationError("--segment-seconds must be within 1...60") }
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let known: [ClientDefinition]
        do { known = try ClientSelection.known(fileClients: clientsFileClients(), extra: extraClients) } catch { exitBadInput(error.description) }
        if list { return print(ClientSelection.listing(known).joined(separator: "\n")) }
        let chosenModes: [FaultMode]
        let chosenClients: [ClientDefinition]
        let expected: [ComparisonExpectation]
        do {
            expected = try expectations.map { text throws(ClientDefinitionError) in try ComparisonExpectation(parsing: text) }
            chosenModes = try ClientSelection.modes(modes)
            chosenClients = try ClientSelection.clients(clients, known: known, extra: extraClients, fileClients: clientsFileClients())
        } catch { exitBadInput(error.description) }
        let path = profile ?? ""
        let loaded: Profile
        do { loaded = try Profile.load(contentsOf: path) } catch { exitBadInput("\(error)") }
        var mediaConfiguration = ContentMedia.synthetic
        if media == .real {
            for tool in ["ffmpeg", "ffprobe"] where ToolLocator.find(tool) == nil {
                exitBadInput("--media real needs \(tool): install ffmpeg (apt-get install ffmpeg), or use --media synthetic")
            }
            mediaConfiguration = .real(RealMediaConfiguration(cacheDirectory: mediaCache ?? RealMediaConfiguration.defaultCacheDirectory))
        }
        let options = ComparisonOptions(
            profile: loaded, profilePath: path, seed: seed ?? loaded.seed, clients: chosenClients, modes: chosenModes,
            media: mediaConfiguration, videoSeconds: videoSeconds, segmentSeconds: segmentSeconds, targetSeconds: targetSeconds,
            timeLimit: .milliseconds(Int64(timeLimit * 1000)), keepWorkDirectories: keepWork,
            executable: SuiteRun.executablePath(), traceConnects: !noConnectTrace)
        let printer = ComparePrinter(toStandardError: json)
        let interrupts = ClientRegistry.shared.killEveryGroupOnInterrupt {
            FileHandle.standardError.writeSurvivingSignals(Data("\ninterrupted: the clients still running were killed; no report written\n".utf8))
            Foundation.exit(130)
        }
        defer { interrupts.forEach { $0.cancel() } }
        printer.header(options)
        let result: ComparisonRun
        do { result = try await ComparisonRunner.run(options) { printer.handle($0) } } catch { exitWithError("\(error)", code: 1) }
        let directory = out ?? SummaryTable.defaultDirectory(profile: "compare-\(loaded.name)")
        let files = try ReportWriter().write(result.report, trace: result.trace, to: URL(fileURLWithPath: directory))
        if json {
            FileHandle.standardOutput.writeSurvivingSignals(try ComparisonJSON.encode(result.report))
            FileHandle.standardOutput.writeSurvivingSignals(Data("\n".utf8))
        } else {
            print("\n" + ComparisonTable.render(result.report))
            print("\nreport: \(files.reportHTML.path)")
        }
        let broken = ComparisonExpectation.failures(expected, in: result.report)
        if !broken.isEmpty {
            FileHandle.standardError.writeSurvivingSignals(Data(broken.map { "compare: FAIL \($0)\n" }.joined().utf8))
            throw ExitCode(1)
        }
        if !expected.isEmpty {
            let line = "compare: \(expected.count) expectation\(expected.count == 1 ? "" : "s") held\n"
            FileHandle(fileDescriptor: json ? 2 : 1).writeSurvivingSignals(Data(line.utf8))
        }
    }

    private func clientsFileClients() throws(ClientDefinitionError) -> [ClientDefinition] {
        guard let clientsFile else { return [] }
        return try ClientDefinition.load(contentsOf: clientsFile)
    }
}
