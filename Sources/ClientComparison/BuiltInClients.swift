/// The clients `bench compare` knows without a definition file: ffmpeg, yt-dlp and
/// streamlink as their users run them (plain, and with the retry options their
/// documentation offers), and Deadzone's own engine through `bench download`.
public enum BuiltInClients {
    /// Every built-in definition, in the order reports list them.
    public static let all: [ClientDefinition] = [
        ClientDefinition(
            name: "ffmpeg", summary: "ffmpeg -i <master> -c copy: remuxes the stream to MPEG-TS",
            command: "ffmpeg -nostdin -hide_banner -loglevel warning -y -i {url} -c copy {output}",
            output: "ffmpeg.ts", validation: .media, requires: ["ffmpeg"],
            install: "apt-get install ffmpeg (Debian/Ubuntu) or brew install ffmpeg"),
        ClientDefinition(
            name: "ffmpeg-reconnect",
            summary: "ffmpeg -c copy with -reconnect, -reconnect_streamed, -reconnect_on_network_error and -rw_timeout",
            command: "ffmpeg -nostdin -hide_banner -loglevel warning -y -reconnect 1 -reconnect_streamed 1 "
                + "-reconnect_on_network_error 1 -reconnect_delay_max 30 -rw_timeout 15000000 -i {url} -c copy {output}",
            output: "ffmpeg-reconnect.ts", validation: .media, requires: ["ffmpeg"],
            install: "apt-get install ffmpeg (Debian/Ubuntu) or brew install ffmpeg"),
        ClientDefinition(
            name: "yt-dlp", summary: "yt-dlp with its defaults (native HLS downloader; skips fragments it cannot get)",
            command: "yt-dlp --no-progress --no-cache-dir --no-playlist -o {output} {url}",
            output: "yt-dlp.mp4", validation: .media, requires: ["yt-dlp"],
            install: "python3 -m pip install yt-dlp"),
        ClientDefinition(
            name: "yt-dlp-abort",
            summary: "yt-dlp --fragment-retries 10 --abort-on-unavailable-fragment: fails rather than skip a fragment",
            command: "yt-dlp --no-progress --no-cache-dir --no-playlist --fragment-retries 10 "
                + "--abort-on-unavailable-fragment -o {output} {url}",
            output: "yt-dlp-abort.mp4", validation: .media, requires: ["yt-dlp"],
            install: "python3 -m pip install yt-dlp"),
        ClientDefinition(
            name: "streamlink", summary: "streamlink <master> best: writes the stream as served",
            command: "streamlink --loglevel warning --force --output {output} {url} best",
            output: "streamlink.ts", validation: .auto, requires: ["streamlink"],
            install: "python3 -m pip install streamlink"),
        ClientDefinition(
            name: "deadzone", summary: "Deadzone's engine: bench download <catalog entry> --export <file>",
            command: "{bench} download {catalog_url} --storage {workdir}/store --export {output}",
            output: "deadzone.ts", validation: .bytes),
    ]

    /// The built-in definition called `name`.
    public static func named(_ name: String) -> ClientDefinition? {
        all.first { $0.name == name }
    }
}

/// Finds executables on `PATH`.
public enum ToolLocator {
    /// The absolute path of `name` (or `name` itself when it holds a `/` and is
    /// executable), nil when it is not installed.
    public static func find(_ name: String, path: String? = nil) -> String? {
        if name.contains("/") { return FileManagerAccess.isExecutable(name) ? name : nil }
        let search = path ?? ProcessEnvironment.value("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in search.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManagerAccess.isExecutable(candidate) { return candidate }
        }
        return nil
    }

    /// The executables of `client.requires` that are not installed.
    public static func missing(for client: ClientDefinition) -> [String] {
        client.requires.filter { find($0) == nil }
    }
}
