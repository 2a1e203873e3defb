import AppProtocol
import BenchCore
import Foundation
import Testing

/// The wire form is for people writing apps in any language: flat objects with a
/// `type` and a `name`, readable field names, dates as RFC 3339, states as strings.
@Suite struct AppWireTests {
    func text(_ value: some Encodable) throws -> String {
        String(decoding: try AppWire.line(value), as: UTF8.self)
    }

    @Test func commandsReadAsWritten() throws {
        #expect(try text(AppRequest(id: 7, command: .pause(download: "d1")))
            == #"{"download":"d1","id":7,"name":"pause","type":"command"}"# + "\n")
        #expect(try text(AppRequest(id: 0, command: .hello(protocol: 1, storage: "/tmp/s", after: .crash)))
            == #"{"after":"crash","id":0,"name":"hello","protocol":1,"storage":"/tmp/s","type":"command"}"# + "\n")
        let wifi = PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "127.0.0.2:4000")
        #expect(try text(AppRequest(id: 1, command: .setPath(NetworkPath(interfaces: [wifi]))))
            == #"{"id":1,"interfaces":[{"endpoint":"127.0.0.2:4000","isConstrained":false,"isExpensive":false,"kind":"wifi","proxy":"http://127.0.0.2:4000"}],"name":"setPath","type":"command"}"# + "\n")
    }

    @Test func everyCommandRoundTrips() throws {
        let video = VideoDocument(
            id: "clear", name: "Clear", duration: 10, poster: "/p.png", thumbnail: "/t.png", textTracks: [],
            offlineEnabled: true, sources: [])
        let commands: [AppCommand] = [
            .hello(protocol: 1, storage: "/s", after: .userForceQuit),
            .setPath(NetworkPath(interfaces: [])), .setForeground(false), .prepareForBackground,
            .setAllowsCellular(true),
            .request(AppDownloadRequest(video: video, catalogURL: "http://o/videos/clear", allowsCellular: false,
                                        rentalSeconds: 12, audioLanguages: ["fr"], subtitleLanguages: ["de"])),
            .request(AppDownloadRequest(video: video, catalogURL: "http://o/videos/clear")),
            .pause(download: "a"), .resume(download: "a"), .cancel(download: "a"), .delete(download: "a"),
            .inspect(download: "a"), .shutdown,
        ]
        for (id, command) in commands.enumerated() {
            let line = try text(AppRequest(id: id, command: command))
            #expect(!line.contains("_0") && !line.contains("_1"), "\(line)")
            #expect(try AppWire.decode(AppRequest.self, from: line.dropLast()) == AppRequest(id: id, command: command))
        }
    }

    @Test func eventsAndRepliesReadAsWritten() throws {
        #expect(try text(AppMessage.event(t: 5, .stateChanged(download: "d1", from: .downloading, to: .suspended(.network))))
            == #"{"download":"d1","from":"downloading","name":"stateChanged","t":5,"to":"suspended(network)","type":"event"}"# + "\n")
        #expect(try text(AppMessage.event(t: 1, .licenseAcquired(download: "d", expiration: Date(timeIntervalSince1970: 1_800_000_000))))
            .contains(#""expiration":"2027-01-15T08:00:00.000Z""#))
        #expect(try text(AppMessage.reply(AppReply(id: 3, error: "no such download")))
            == #"{"error":"no such download","id":3,"type":"reply"}"# + "\n")
        #expect(try text(AppMessage.reply(AppReply(id: 0, value: .hello(AppHello(app: "x 1", capabilities: [.pause, .licenses])))))
            == #"{"app":"x 1","capabilities":["licenses","pause"],"id":0,"protocol":1,"type":"reply"}"# + "\n")
    }

    @Test func everyMessageRoundTrips() throws {
        let messages: [AppMessage] = [
            .event(t: 1, .launched(pid: 42, after: .memoryPressure)),
            .event(t: 2, .progress(download: "d", selection: "audio_fr", fraction: 0.5)),
            .event(t: 3, .segmentStored(download: "d", stream: "video", index: 3, bytes: 1000, path: "/videos/clear/400k/seg3.ts")),
            .event(t: 4, .licenseRenewed(download: "d", expiration: Date(timeIntervalSince1970: 1_800_000_000.5))),
            .event(t: 5, .licenseFailed(download: "d", reason: "503")),
            .event(t: 6, .finished(download: "d", package: "/s/p/master.m3u8")),
            .event(t: 7, .evicted(download: "d")), .event(t: 8, .error(download: nil, message: "m")),
            .event(t: 9, .partialSegmentsFound([AppPartialSegment(download: "d", stream: "video", index: 1, path: "/p", bytes: 9, byteRange: "bytes=0-99")])),
            .reply(AppReply(id: 1)), .reply(AppReply(id: 2, value: .download("tok"))),
            .reply(AppReply(id: 3, value: .unfinished(["tok": "offline"]))),
            .reply(AppReply(id: 4, value: .inspection(AppInspection(
                download: "d", known: true, state: .downloaded, playable: false, unplayableReason: "license expired",
                licenseExpiration: Date(timeIntervalSince1970: 1_800_000_000), package: "/s/p/master.m3u8")))),
            .reply(AppReply(id: 0, value: .hello(AppHello(app: "y", capabilities: Set(Capability.allCases))))),
        ]
        for message in messages {
            let line = try text(message)
            #expect(try AppWire.decode(AppMessage.self, from: line.dropLast()) == message, "\(line)")
        }
        // Capabilities this harness does not know are kept apart, not refused.
        let hello = try AppWire.decode(AppMessage.self, from: #"{"type":"reply","id":0,"protocol":1,"app":"z","capabilities":["pause","teleport"]}"#)
        #expect(hello == .reply(AppReply(id: 0, value: .hello(AppHello(app: "z", capabilities: [.pause], otherCapabilities: ["teleport"])))))
    }

    @Test func aBadLineSaysWhatIsWrongAndWhere() {
        func problem(_ line: String) -> String {
            do { _ = try AppWire.decode(AppMessage.self, from: line); return "decoded" } catch { return error.problem }
        }
        #expect(problem("garbage").hasPrefix("not a JSON object"))
        #expect(problem(#"{"type":"event","t":1,"name":"stateChanged","from":"downloading","to":"failed"}"#)
            == #"field "download": missing"#)
        #expect(problem(#"{"type":"event","t":1,"name":"stateChanged","download":"d","from":"flying","to":"failed"}"#)
            .contains("expected a download state such as downloading or suspended(network), got flying"))
        #expect(problem(#"{"type":"event","t":1,"name":"teleported"}"#).contains(#"unknown name "teleported""#))
        #expect(problem(#"{"type":"gossip"}"#).contains(#"unknown type "gossip""#))
        #expect(problem(#"{"type":"reply","id":"three"}"#).hasPrefix(#"field "id": not a Int"#))
        #expect(AppWire.id(in: #"{"type":"command","id":12,"name":"fly"}"#) == 12)
    }

    @Test func statesParseTheirOwnForm() {
        for state in AppState.allCases { #expect(AppState(state.description) == state) }
        #expect(AppState("suspended(sleepy)") == nil)
    }
}
