/// A downloader under comparison, seen as a black box: a shell command with
/// placeholders, the file it writes, and how to tell whether it worked.
///
/// Built-in definitions (`BuiltInClients`) cover ffmpeg, yt-dlp, streamlink and
/// Deadzone's own engine; users add theirs with `--client NAME='COMMAND'` or a YAML file
/// (`ClientDefinition.load(yaml:file:)`). A plain `Sendable` value, checked by
/// `validate()` before anything runs.
public struct ClientDefinition: Sendable, Hashable, Codable {
    /// Letters, digits, `-`, `_` and `.`: it names directories and report rows.
    public var name: String
    /// One line for people: what the client is and how it is run.
    public var summary: String
    /// A `/bin/sh` command line with placeholders (`ClientPlaceholder`), e.g.
    /// `ffmpeg -i {url} -c copy {output}`. Each placeholder becomes one shell-quoted
    /// word, so values with spaces are safe.
    public var command: String
    /// The file name the client writes inside its work directory (`{output}` is its
    /// absolute path). Its extension matters to some tools (ffmpeg picks the container by it).
    public var output: String
    /// How the output is judged.
    public var validation: OutputValidationMethod
    /// Exit statuses that mean "the client says it succeeded". Default `[0]`.
    public var successExitCodes: [Int32]
    /// Executables that must be on `PATH` for the client to run (e.g. `["ffmpeg"]`).
    public var requires: [String]
    /// How to install what `requires` names, shown when it is missing.
    public var install: String?

    /// Creates a definition; call `validate()` before running it.
    public init(
        name: String, summary: String = "", command: String, output: String = "output.ts",
        validation: OutputValidationMethod = .auto, successExitCodes: [Int32] = [0], requires: [String] = [],
        install: String? = nil
    ) {
        self.name = name
        self.summary = summary
        self.command = command
        self.output = output
        self.validation = validation
        self.successExitCodes = successExitCodes
        self.requires = requires
        self.install = install
    }
}

/// How a client's output file is judged against what the origin served.
public enum OutputValidationMethod: String, Sendable, Hashable, Codable, CaseIterable {
    /// Byte for byte: the output is the concatenation of the variant's segments, in
    /// order (what a downloader that saves the stream as served writes).
    case bytes
    /// As media (real-media content only): ffprobe finds the whole duration and
    /// decoding it with ffmpeg reports no error (what a remuxing client writes).
    case media
    /// Byte for byte when the output is byte-identical; otherwise, with real media,
    /// as media; with synthetic content, invalid.
    case auto
}

/// Why a client definition cannot be used.
public enum ClientDefinitionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The definition itself is wrong.
    case invalid(client: String, reason: String)
    /// A YAML client file cannot be read or parsed; `line` is 1-based when known.
    case file(path: String, line: Int?, reason: String)

    public var description: String {
        switch self {
        case let .invalid(client, reason): "client \"\(client)\": \(reason)"
        case let .file(path, line, reason): "\(path)\(line.map { ":\($0)" } ?? ""): \(reason)"
        }
    }
}
