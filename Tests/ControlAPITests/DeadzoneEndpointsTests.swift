import BenchCore
import ControlAPI
import Foundation
import LinkConditioner
import TestSupport
import Testing

/// Deadzone's own endpoints over real sockets: a profile's conditioner in front of a real
/// upstream, its interfaces taken down and up, its timeline paused, moved and resumed, and
/// its events streamed as JSON lines and as server-sent events.
@Suite(.timeLimit(.minutes(3))) struct DeadzoneEndpointsTests {
    /// Cellular goes down at 100 s and comes back at 200 s of a 300 s profile: far enough
    /// that only a move of the timeline gets there during a test.
    static let profile = Profile(
        name: "api-test", duration: .seconds(300),
        timeline: [
            Phase(at: .seconds(100), label: "cellular lost", changes: [
                .cellular: InterfaceSetup(state: .down(.reset), link: InterfaceLink(isExpensive: true)),
            ]),
            Phase(at: .seconds(200), label: "cellular back", changes: [.cellular: .defaultSetup(for: .cellular)]),
        ])

    private struct Run {
        var api: APIClient
        var port: Int
        var conditioner: LinkConditioner
    }

    /// The API, with a conditioner playing `profile` attached (unless `attached` is false).
    private func withRun(attached: Bool = true, _ body: (Run) async throws -> Void) async throws {
        let upstream = try await BlobServer.start(size: 10_000)
        let deadzone = DeadzoneService()
        let configuration = ConditionerConfiguration(
            upstream: SocketAddress(parsing: upstream.address)!,
            listeners: [.wifi: SocketAddress(host: "127.0.0.1", port: 0), .cellular: SocketAddress(host: "127.0.0.1", port: 0)],
            profile: Self.profile)
        let conditioner = try await LinkConditioner.start(configuration: configuration, sink: deadzone.feed)
        if attached { deadzone.attach(conditioner) }
        let server = try await ControlServer.start(
            host: "127.0.0.1", port: 0, token: nil, router: ControlRouter(toxiproxy: ToxiproxyService(), deadzone: deadzone))
        func stop() async {
            await server.stop()
            _ = await conditioner.stop()
            await upstream.stop()
        }
        do { try await body(Run(api: APIClient(base: server.url), port: server.port, conditioner: conditioner)) } catch {
            await stop()
            throw error
        }
        await stop()
    }

    private func message(_ answer: APIClient.Answer) -> String {
        answer.json?.objectValue?["error"]?.stringValue ?? "(no error message: \(answer.text))"
    }

    /// The state `GET /deadzone` (or a change's answer) gives the interface.
    private func state(_ answer: APIClient.Answer, _ kind: InterfaceKind) -> String? {
        guard case .array(let interfaces)? = answer.json?.objectValue?["interfaces"] else { return nil }
        return interfaces.first { $0.objectValue?["kind"]?.stringValue == kind.rawValue }?.objectValue?["state"]?.stringValue
    }

    @Test func anInterfaceTakenDownRefusesAndComesBackUp() async throws {
        try await withRun { run in
            let before = try await run.api.call(.GET, "/deadzone")
            #expect(before.status == 200)
            #expect(state(before, .wifi) == "up" && state(before, .cellular) == "up")
            let wifi = run.conditioner.endpoints[.wifi]!.description

            let down = try await run.api.call(.POST, "/deadzone/interfaces/wifi", #"{"state": "down", "mode": "reset"}"#)
            #expect(down.status == 200, "\(down.text)")
            #expect(down.json?.objectValue?["interface"]?.objectValue?["state"] == .string("down(reset)"))
            #expect(await !APIClient.connects(to: wifi), "a reset-down interface refuses new connections")
            #expect(down.json?.objectValue?["publishedPath"]?.objectValue?["interfaces"].map { "\($0)" }?.contains("wifi") == false,
                    "the path published at once has no WiFi: \(down.text)")

            let withheld = try await run.api.call(.POST, "/deadzone/interfaces/wifi", #"{"state": "up", "pathUpdate": "withheld"}"#)
            #expect(withheld.status == 200 && state(withheld, .wifi) == "up")
            #expect(await APIClient.connects(to: wifi))
            #expect(withheld.json?.objectValue?["publishedPath"]?.objectValue?["interfaces"].map { "\($0)" }?.contains("wifi") == false,
                    "a withheld update leaves the published path without WiFi: \(withheld.text)")
            #expect(withheld.json?.objectValue?["path"]?.objectValue?["interfaces"].map { "\($0)" }?.contains("wifi") == true)
        }
    }

    @Test func badInterfaceRequestsAreRefusedNamingTheField() async throws {
        try await withRun { run in
            let cases: [(String, String, Int, String)] = [
                ("/deadzone/interfaces/bluetooth", #"{"state": "down"}"#, 404, "no interface bluetooth"),
                ("/deadzone/interfaces/wifi", #"{"state": "sideways"}"#, 400, "state must be"),
                ("/deadzone/interfaces/wifi", #"{"mode": "reset"}"#, 400, "missing required field: state"),
                ("/deadzone/interfaces/wifi", #"{"state": "up", "mode": "reset"}"#, 400, "mode concerns an interface taken down"),
                ("/deadzone/interfaces/wifi", #"{"state": "down", "mode": "flood"}"#, 400, "mode must be"),
                ("/deadzone/interfaces/wifi", #"{"state": "down", "pathUpdate": -2}"#, 400, "pathUpdate must be"),
                ("/deadzone/interfaces/wifi", #"{"state": "down", "colour": "red"}"#, 400, "unknown field in an interface change: colour"),
                ("/deadzone/interfaces/wifi", "{not json", 400, "not JSON"),
                ("/deadzone/timeline", #"{"action": "rewind"}"#, 400, "action must be"),
                ("/deadzone/timeline", #"{"action": "move"}"#, 400, "missing required field: to"),
                ("/deadzone/timeline", #"{"action": "move", "to": "soon"}"#, 400, "to must be"),
                ("/deadzone/timeline", #"{"action": "pause", "to": 3}"#, 400, "to concerns a move"),
            ]
            for (path, body, status, says) in cases {
                let answer = try await run.api.call(.POST, path, body)
                #expect(answer.status == status, "\(path) \(body): \(answer.text)")
                #expect(message(answer).contains(says), "\(path) \(body): \(message(answer))")
            }
            #expect(try await run.api.call(.GET, "/deadzone/timeline").status == 405)
            #expect(message(try await run.api.call(.PATCH, "/deadzone/timeline", "{}")).contains("use POST"))
            #expect(try await run.api.call(.GET, "/deadzone/events?from=-3").status == 400)
            #expect(try await run.api.call(.GET, "/deadzone/events?from=999999").status == 400)
            #expect(try await run.api.call(.GET, "/deadzone/events?colour=red").status == 400)
            // Nothing refused changed anything.
            #expect(state(try await run.api.call(.GET, "/deadzone"), .wifi) == "up")
        }
    }

    @Test func theTimelinePausesMovesAndResumes() async throws {
        try await withRun { run in
            let paused = try await run.api.call(.POST, "/deadzone/timeline", #"{"action": "pause"}"#)
            #expect(paused.status == 200 && paused.json?.objectValue?["paused"] == .bool(true), "\(paused.text)")

            let forward = try await run.api.call(.POST, "/deadzone/timeline", #"{"action": "move", "to": "150s"}"#)
            let timeline = forward.json?.objectValue
            #expect(timeline?["position"] == .number(150) && timeline?["phasesPlayed"] == .number(1), "\(forward.text)")
            #expect(timeline?["paused"] == .bool(true) && timeline?["nextPhaseLabel"] == .string("cellular back"))
            let afterForward = try await run.api.call(.GET, "/deadzone")
            #expect(state(afterForward, .cellular) == "down(reset)", "the phase passed over applied: \(afterForward.text)")
            #expect(await !APIClient.connects(to: run.conditioner.endpoints[.cellular]!.description))

            let back = try await run.api.call(.POST, "/deadzone/timeline", #"{"action": "move", "to": 30}"#)
            #expect(back.json?.objectValue?["position"] == .number(30) && back.json?.objectValue?["phasesPlayed"] == .number(0))
            #expect(state(try await run.api.call(.GET, "/deadzone"), .cellular) == "up", "moved back: the initial setup again")

            let resumed = try await run.api.call(.POST, "/deadzone/timeline", #"{"action": "resume"}"#)
            #expect(resumed.json?.objectValue?["paused"] == .bool(false))
            let position = try #require(resumed.json?.objectValue?["position"]?.numberValue)
            #expect(position >= 30 && position < 100, "it plays on from 30 s (\(position))")
        }
    }

    @Test func eventsStreamAsJSONLinesFromTheFirstAndLive() async throws {
        try await withRun { run in
            let stream = try await StreamReader.open(port: run.port, target: "/deadzone/events")
            defer { stream.close() }
            #expect(await stream.read { $0.contains(#""seq":0,"#) && $0.contains(#""type":"listening""#) },
                    "the kept events first, numbered from 0: \(stream.text.prefix(600))")
            #expect(stream.text.contains("Content-Type: application/x-ndjson"))
            _ = try await run.api.call(.POST, "/deadzone/interfaces/cellular", #"{"state": "down", "mode": "blackhole"}"#)
            #expect(await stream.read { $0.contains(#""interface":"cellular","mode":"blackhole","type":"interfaceDown""#) },
                    "the change arrives live: \(stream.text.suffix(600))")
            _ = try await run.api.call(.POST, "/deadzone/timeline", #"{"action": "move", "to": 120}"#)
            #expect(await stream.read { $0.contains(#""action":"moved","at":120,"type":"timelineControlled""#) && $0.contains("cellular lost") })
            // Each line is one JSON object with its number, in order.
            let lines = stream.text.split(separator: "\r\n\r\n", maxSplits: 1).last.map(String.init) ?? ""
            let numbers = lines.split(separator: "\n").compactMap { line -> Int? in
                guard let start = line.range(of: #""seq":"#) else { return nil }
                return Int(line[start.upperBound...].prefix { $0.isNumber })
            }
            #expect(!numbers.isEmpty && numbers == Array(numbers.sorted()) && Set(numbers).count == numbers.count)
        }
    }

    @Test func serverSentEventsResumeAfterTheLastEventID() async throws {
        try await withRun { run in
            let first = try await StreamReader.open(port: run.port, target: "/deadzone/events", headers: ["Accept: text/event-stream"])
            #expect(await first.read { $0.contains("id: 1\nevent: listening\n") })
            #expect(first.text.contains("Content-Type: text/event-stream"))
            first.close()
            _ = try await run.api.call(.POST, "/deadzone/interfaces/wifi", #"{"state": "down", "mode": "refuse"}"#)
            let resumed = try await StreamReader.open(port: run.port, target: "/deadzone/events",
                                                      headers: ["Accept: text/event-stream", "Last-Event-ID: 1"])
            defer { resumed.close() }
            #expect(await resumed.read { $0.contains("event: interfaceDown\n") })
            #expect(!resumed.text.contains("id: 0\n") && !resumed.text.contains("id: 1\n"), "resumed after event 1")
            #expect(resumed.text.contains("id: 2\n"))
        }
    }

    @Test func withoutAProfileTheEndpointsSaySoAndToxiproxysStillWork() async throws {
        try await withRun(attached: false) { run in
            for path in ["/deadzone", "/deadzone/events"] {
                let answer = try await run.api.call(.GET, path)
                #expect(answer.status == 409 && message(answer).contains("--profile"), "\(path): \(answer.text)")
            }
            #expect(try await run.api.call(.GET, "/proxies").status == 200)
            #expect(try await run.api.call(.GET, "/deadzone/nothing").status == 404)
        }
    }
}
