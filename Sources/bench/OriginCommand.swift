import ArgumentParser
import BenchCore
import BenchVocabulary
import FixtureOrigin
import Foundation

/// `bench origin`: the fixture HLS origin standalone, for any player or downloader.
struct OriginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "origin",
        abstract: "Serve the fixture HLS catalog and print each master playlist URL.",
        discussion: """
            Serves the catalog API (/videos, /videos/{id}), HLS playlists and segments, posters, the \
            license server (/license/certificate, /license, /license/renew) and POST /_control/background. \
            Runs until Ctrl-C or --duration.
            GET /videos/{id}/manifest.json answers the SHA-256 of every resource of that video (made on \
            first request: it generates every segment of the video).
            --faults FILE loads HTTP fault rules (JSON, see docs/origin.md) at start; a bad file exits 2.
            --media synthetic (default) serves seeded bytes that are not decodable, for byte-exact checks; \
            --media real serves H.264/AAC MPEG-TS made by ffmpeg on first request (seconds per segment, \
            then cached in --media-cache), which players, ffmpeg and ffprobe accept.
            Examples: swift run bench origin --port 8080
                      swift run bench origin --faults faults.json
                      swift run bench origin --media real   # then: ffmpeg -i http://127.0.0.1:8080/videos/clear/master.m3u8 -c copy clear.ts
            """
    )

    @Option(help: "Address to listen on (loopback only by default).")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "Seed of the synthetic content.")
    var seed: UInt64 = 1

    @Option(help: "Scale of segment sizes (1 = the variant's bitrate; 0.01 for quick tests).")
    var sizeScale = 1.0

    @Option(help: "Segment content: synthetic (seeded bytes) or real (ffmpeg-made H.264/AAC).")
    var media: MediaKind = .synthetic

    @Option(help: "Directory of ffmpeg-made segments (--media real); default ~/.cache/deadzone/media.")
    var mediaCache: String?

    @Option(help: "Stop after this long (e.g. 90s); default: until Ctrl-C.")
    var duration: String?

    @Option(help: "JSON file of HTTP fault rules to apply from the start (see docs/origin.md).")
    var faults: String?

    @Option(name: .customLong("https"), help: ArgumentHelp(
        "Serve HTTPS too, on the same port, and write the certificate of the CA made for this run here.",
        discussion: "The origin's certificate, signed by that CA, names localhost, 127.0.0.1 to 127.0.0.3 and ::1; a client trusts the CA file (curl --cacert, ffmpeg -ca_file, a simulator's keychain). A connection whose first byte is a TLS handshake speaks TLS, any other plain HTTP.",
        valueName: "ca-file"))
    var https: String?

    @Option(name: .customLong("interface"), help: ArgumentHelp(
        "Name the interface a PROXY-header destination stands for, as NAME=HOST:PORT (repeatable).",
        discussion: "bench proxy --proxy-protocol sends each connection's listener as the destination: --interface wifi=127.0.0.2:8081 names the requests that came through that listener wifi in the request log. Unnamed destinations are logged as HOST:PORT.",
        valueName: "name=host:port"))
    var interfaces: [String] = []

    @Option(help: ArgumentHelp(
        "Append every request to this file as a JSON line (path, status, bytes, and the interface it came through).",
        valueName: "file"))
    var requestLog: String?

    @Option(name: .customLong("catalog"), help: ArgumentHelp(
        "A catalog directory `bench record` wrote: its streams are served beside the fixture videos, byte for byte, each at "
            + "the path it was recorded from (repeatable).", valueName: "DIR"))
    var catalogs: [String] = []

    @Flag(help: "Serve the recorded catalogs alone, without the fixture videos (needs --catalog).")
    var recordedOnly = false

    func validate() throws {
        if recordedOnly, catalogs.isEmpty { throw ValidationError("--recorded-only needs at least one --catalog DIR") }
        for entry in interfaces {
            let parts = entry.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains(":") else {
                throw ValidationError("--interface \(entry): expected NAME=HOST:PORT, e.g. wifi=127.0.0.2:8081")
            }
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard sizeScale > 0, sizeScale <= 10 else { throw ValidationError("--size-scale must be in (0, 10]") }
        if let duration {
            do { _ = try Units.parseDuration(duration) } catch { throw ValidationError("--duration: \(error)") }
        }
    }

    func run() async throws {
        var configuration = OriginConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.catalog = CatalogConfiguration(seed: seed, sizeScale: sizeScale)
        configuration.controlAPIEnabled = true
        if !catalogs.isEmpty {
            if recordedOnly { configuration.videos = [] }
            let fixtureIDs = Set((configuration.videos ?? Catalog.standardVideos(configuration.catalog)).map(\.id))
            do { configuration.recorded = try RecordedContent.load(catalogs, reservedIDs: fixtureIDs) } catch {
                exitBadInput("--catalog: \(error)")
            }
        }
        if let faults {
            do { configuration.faultRules = try FaultRuleSet.load(contentsOf: faults) } catch { exitBadInput("--faults \(error)") }
        }
        if media == .real {
            configuration.media = .real(RealMediaConfiguration(cacheDirectory: mediaCache ?? RealMediaConfiguration.defaultCacheDirectory))
        }
        if let https {
            do {
                let authority = try RunCertificateAuthority.make()
                try Data(authority.caPEM.utf8).write(to: URL(fileURLWithPath: https))
                configuration.tls = authority
            } catch {
                exitBadInput("--https \(https): cannot make or write the run's CA certificate: \(error)")
            }
        }
        for entry in interfaces {
            let parts = entry.split(separator: "=", maxSplits: 1)
            configuration.interfaces[String(parts[1])] = String(parts[0])
        }
        let log: RequestLogFile?
        do { log = try requestLog.map(RequestLogFile.init(path:)) } catch { exitBadInput("--request-log \(requestLog ?? ""): \(error)") }
        var sink: (@Sendable (OriginRequestRecord) -> Void)?
        if let log { sink = { log.append($0) } }
        let server: OriginServer
        do {
            server = try await OriginServer.start(configuration: configuration, requestSink: sink)
        } catch let error as ContentError {
            exitBadInput("\(error)")
        } catch {
            exitWithError("cannot listen on \(host):\(port): \(error)", code: 1)
        }
        let base = "http://\(host):\(server.port)"
        switch server.store.media {
        case .synthetic: print("origin \(base) (synthetic media, seed \(seed), size scale \(sizeScale))")
        case .real(let real): print("origin \(base) (real media made by ffmpeg on first request, cached in \(real.cacheDirectory))")
        }
        if let https { print("https://\(host):\(server.port) too, with a certificate from the CA in \(https)") }
        if !configuration.faultRules.rules.isEmpty {
            print("fault rules from \(faults ?? "-"): " + configuration.faultRules.rules.map(\.id).joined(separator: ", "))
        }
        if !recordedOnly { print(server.store.catalog.listing(base: base).joined(separator: "\n")) }
        for stream in configuration.recorded.streams {
            print("\(stream.video.id.padding(toLength: 12, withPad: " ", startingAt: 0)) \(base)\(stream.masterPath)  "
                + "[recorded from \(stream.video.master): \(stream.paths.count) resources, \(stream.video.protection)]")
        }
        print("hash manifest of a video: \(base)/videos/{id}/manifest.json")
        fflush(nil)
        await waitForInterrupt(orAfter: duration.flatMap { try? Units.parseDuration($0) })
        let served = server.requestLog.count
        try await server.stop()
        log?.close()
        print("served \(served) requests")
    }
}

/// `--media` values.
enum MediaKind: String, ExpressibleByArgument, CaseIterable {
    case synthetic, real
}
