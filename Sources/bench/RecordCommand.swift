import ArgumentParser
import BenchCore
import Foundation
import StreamRecorder
import Synchronization

/// `bench record [ID=]URL… --out DIR`: records HLS streams, byte for byte, into a catalog
/// directory with its manifest (`catalog.json`), for `bench origin --catalog DIR`.
/// Progress goes to standard error; a stream that cannot be recorded exits 1 naming the
/// playlist and line, keeping everything recorded before it; bad arguments exit 2.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record HLS streams into a catalog directory the origin can serve.",
        discussion: """
            Fetches each stream's whole tree: the master playlist, every variant, audio, subtitle and I-frame \
            playlist, and every segment (byte ranges included: the whole file once), init section (EXT-X-MAP), \
            AES-128 key and subtitle file they name, following and recording redirects. Each resource's URL, \
            content type, size and SHA-256 go into DIR/catalog.json. Run it again to resume: what is already \
            whole on disk is kept, what is missing or damaged is fetched again. A live playlist (no \
            EXT-X-ENDLIST) is refused; an skd:// key is recorded as a license key, never fetched.
            """
    )

    @Argument(help: ArgumentHelp("The streams: a master (or media) playlist URL each, optionally ID=URL.",
        valueName: "[ID=]URL"))
    var streams: [String]

    @Option(name: .long, help: ArgumentHelp("The catalog directory to write (created, or resumed).", valueName: "DIR"))
    var out: String

    @Option(name: .long, help: ArgumentHelp("A PEM file of CA certificates to trust besides the system's.",
        valueName: "FILE"))
    var ca: String?

    @Option(name: .long, help: ArgumentHelp("A poster image to record with a stream.", valueName: "ID=URL"))
    var poster: [String] = []

    @Option(name: .long, help: "Resources fetched at a time.")
    var jobs: Int = 4

    func run() async throws {
        let requests: [StreamRecorder.Request]
        do { requests = try Self.requests(streams, posters: poster) } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        guard jobs >= 1 else {
            printError("error: --jobs must be at least 1")
            throw ExitCode(2)
        }
        let line = ProgressLine()
        do throws(RecordError) {
            let recorder = try StreamRecorder(directory: out, caFile: ca, jobs: jobs) { line.show($0) }
            let outcomes = try await recorder.record(requests)
            for outcome in outcomes {
                print("\(outcome.video.id): \(outcome.resources) resources, \(Self.size(outcome.bytes)) "
                    + "(\(outcome.fetched) fetched, \(outcome.kept) kept), \(String(format: "%.1f", outcome.video.duration)) s, "
                    + "\(outcome.video.protection)" + (outcome.video.licenseKeys.isEmpty ? "" : ", license keys "
                        + outcome.video.licenseKeys.joined(separator: " ")))
            }
            print("catalog: \(out)/\(RecordedCatalog.fileName)")
        } catch {
            printError("error: \(error)")
            if case .badArguments = error { throw ExitCode(2) }
            printError("What was recorded before it is kept in \(out); run the same command again to go on.")
            throw ExitCode(1)
        }
    }

    /// `[ID=]URL` arguments and `ID=URL` posters as requests.
    static func requests(_ streams: [String], posters: [String]) throws(RecordError) -> [StreamRecorder.Request] {
        guard !streams.isEmpty else { throw .badArguments("name at least one stream: bench record URL --out DIR") }
        var requests: [StreamRecorder.Request] = []
        for argument in streams {
            let (id, text) = split(argument)
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil
            else {
                throw .badArguments("\(argument) is not an http or https URL of a playlist (give [ID=]URL)")
            }
            requests.append(StreamRecorder.Request(id: id, url: url))
        }
        for argument in posters {
            let (id, text) = split(argument)
            guard let id, let url = URL(string: text), url.host != nil else {
                throw .badArguments("--poster \(argument): give ID=URL, the id of a stream named here")
            }
            guard let index = requests.firstIndex(where: { $0.id == id }) else {
                throw .badArguments("--poster \(argument): no stream is named \(id) (name it ID=URL)")
            }
            requests[index].poster = url
        }
        return requests
    }

    /// `ID=URL` as its two parts; a plain URL has no id (a `=` after `://` is the URL's).
    private static func split(_ argument: String) -> (String?, String) {
        guard let equals = argument.firstIndex(of: "="),
            !argument[..<equals].contains(":"), !argument[..<equals].contains("/")
        else { return (nil, argument) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    static func size(_ bytes: Int64) -> String {
        bytes >= 1 << 20 ? String(format: "%.1f MiB", Double(bytes) / 1_048_576) : String(format: "%.1f KiB", Double(bytes) / 1024)
    }
}

/// The recording's progress, one line on standard error, at most twice a second.
private final class ProgressLine: Sendable {
    private let last = Mutex<(time: UInt64, shown: Bool)>((0, false))

    func show(_ progress: StreamRecorder.Progress) {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = last.withLock { state -> Bool in
            guard now - state.time >= 500_000_000 || progress.done == progress.known else { return false }
            state = (now, true)
            return true
        }
        guard due else { return }
        let text = "recording \(progress.video): \(progress.done) of \(progress.known) resources known so far "
            + "(\(progress.fetched) fetched, \(progress.done - progress.fetched) kept), "
            + "\(RecordCommand.size(progress.bytesFetched)) fetched"
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

}
