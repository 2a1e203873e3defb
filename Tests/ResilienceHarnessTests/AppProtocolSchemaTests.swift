import AppProtocol
import BenchCore
import Foundation
import ResilienceHarness
import Testing

/// The committed schema (`docs/app-protocol.schema.json`), its embedded copy, and the
/// validator the harness runs every app line through: what every well-formed message
/// passes, and the error (field, problem, schema path) each kind of bad line gets.
@Suite struct AppProtocolSchemaTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs")

    func text(_ value: some Encodable) throws -> String {
        String(String(decoding: try AppWire.line(value), as: UTF8.self).dropLast())
    }

    @Test func theEmbeddedSchemaIsTheCommittedFile() throws {
        let committed = try String(contentsOf: Self.docs.appendingPathComponent("app-protocol.schema.json"), encoding: .utf8)
        #expect(AppProtocolSchema.text + "\n" == committed,
                "docs/app-protocol.schema.json changed: run `bash .ci/embed-protocol-schema`")
        #expect(AppProtocolSchema.validator.root != .object(["$comment": .string("unparsable")]), "the schema does not parse")
    }

    @Test func theValidatorEnforcesEveryKeywordTheSchemaUses() {
        #expect(AppProtocolSchema.validator.unsupportedKeywords() == [])
        let loose = JSONSchemaValidator(root: .object(["not": .object([:]), "properties": .object(["a": .object(["pattern": .string("x")])])]))
        #expect(loose.unsupportedKeywords() == ["not", "pattern"])
    }

    @Test func everyMessageTheWireTypesWriteIsValid() throws {
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let inspection = AppInspection(
            download: "d", known: true, state: .suspended(.user), playable: false, unplayableReason: "expired",
            licenseExpiration: date, package: "/p/master.m3u8", files: 3, segmentHashes: ["/a": "00"], packageComplete: true)
        let messages: [AppMessage] = [
            .event(t: 1, .launched(pid: 42, after: .rebootWhileSuspended)),
            .event(t: 1, .stateChanged(download: "d", from: .requested, to: .suspended(.awaitingForeground))),
            .event(t: 2, .progress(download: "d", selection: "audio_fr", fraction: 1)),
            .event(t: 3, .segmentStored(download: "d", stream: "video", index: 3, bytes: 1000, path: "/v/seg3.ts")),
            .event(t: 4, .licenseAcquired(download: "d", expiration: date)),
            .event(t: 4, .licenseRenewed(download: "d", expiration: date)),
            .event(t: 5, .licenseFailed(download: "d", reason: "refused")),
            .event(t: 6, .finished(download: "d", package: "/p/master.m3u8")),
            .event(t: 7, .evicted(download: "d")), .event(t: 8, .error(download: nil, message: "disk full")),
            .event(t: 9, .partialSegmentsFound([AppPartialSegment(download: "d", stream: "video", index: 1, path: "/v", bytes: 5, byteRange: "bytes=0-9")])),
            .reply(AppReply(id: 1, value: .hello(AppHello(app: "x", capabilities: Set(Capability.allCases), otherCapabilities: ["future"])))),
            .reply(AppReply(id: 2, value: .download("d"))), .reply(AppReply(id: 3, value: .unfinished(["d": "no license yet"]))),
            .reply(AppReply(id: 4, value: .inspection(inspection))), .reply(AppReply(id: 5, error: "no such download")),
            .reply(AppReply(id: 6)),
        ]
        for message in messages {
            let line = try text(message)
            let failure = AppProtocolSchema.validator.firstFailure(of: try JSONValue.parse(line), against: AppProtocolSchema.appLinePointer)
            #expect(failure == nil, "\(line): \(failure.map(String.init(describing:)) ?? "")")
        }
    }

    @Test func everyCommandTheHarnessWritesIsValid() throws {
        let video = VideoDocument(
            id: "clear", name: "Clear", duration: 10, poster: "/p.png", thumbnail: "/t.png", textTracks: [],
            offlineEnabled: true, sources: [SourceDocument(url: "http://o/m.m3u8", type: "application/x-mpegURL", keySystems: nil)])
        let wifi = PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "127.0.0.2:4000")
        let commands: [AppCommand] = [
            .hello(protocol: 1, storage: "/s", after: .userForceQuit), .setPath(NetworkPath(interfaces: [wifi])),
            .setForeground(false), .prepareForBackground, .setAllowsCellular(true),
            .request(AppDownloadRequest(video: video, catalogURL: "http://o/videos/clear", allowsCellular: false, rentalSeconds: 12)),
            .pause(download: "a"), .resume(download: "a"), .cancel(download: "a"), .delete(download: "a"),
            .inspect(download: "a"), .shutdown,
        ]
        for command in commands {
            let line = try text(AppRequest(id: 3, command: command))
            let failure = AppProtocolSchema.validator.firstFailure(of: try JSONValue.parse(line), against: AppProtocolSchema.commandPointer)
            #expect(failure == nil, "\(line): \(failure.map(String.init(describing:)) ?? "")")
            // The document's root accepts every line of either side.
            #expect(AppProtocolSchema.validator.firstFailure(of: try JSONValue.parse(line)) == nil, "\(line)")
        }
    }

    /// Each bad line: the field, the problem and the schema path of the rule it breaks.
    @Test(arguments: [
        (#"{"type":"event","t":5,"name":"progress","download":"d","selection":"video","fraction":1.5}"#,
         "field /fraction: 1.5 is above the maximum 1", "#/$defs/event/oneOf/2/properties/fraction"),
        (#"{"type":"event","t":5,"name":"progress","download":"d","selection":"video"}"#,
         #"the required field "fraction" is missing"#, "#/$defs/event/oneOf/2"),
        (#"{"type":"event","t":5,"name":"stateChanged","download":"d","from":"downloading","to":"paused"}"#,
         #"field /to: "paused" is not one of"#, "#/$defs/state"),
        (#"{"type":"event","t":-3,"name":"evicted","download":"d"}"#, "field /t: -3 is below the minimum 0", "#/$defs/clock"),
        (#"{"type":"event","t":5,"name":"launch","pid":1,"after":"clean"}"#,
         #"field /name: "launch" is not one of "launched", "stateChanged""#, "#/$defs/event/oneOf"),
        (#"{"type":"notice","id":1}"#, #"field /type: "notice" is not one of "reply", "event""#, "#/$defs/appLine/oneOf"),
        (#"{"type":"reply","id":"1"}"#, #"field /id: "1" is a string where an integer is required"#, "#/$defs/id"),
        (#"{"type":"reply","id":1,"unfinished":{"d":3}}"#, "field /unfinished/d: 3 is an integer where a string is required",
         "#/$defs/reply/properties/unfinished/additionalProperties"),
        (#"{"type":"event","t":1,"name":"partialSegmentsFound","segments":[{"download":"d","stream":"v","index":0,"path":"/a"}]}"#,
         #"field /segments/0: the required field "bytes" is missing"#, "#/$defs/partialSegment"),
        ("[1,2]", "[1,2]", "#/$defs/appLine"),
    ])
    func aBadLineNamesTheFieldTheProblemAndTheSchemaPath(_ line: String, problem: String, schemaPath: String) throws {
        let (violation, message) = AppProtocolSchema.violation(inLine: line, number: 4)
        #expect(message == nil)
        let found = try #require(violation, "accepted: \(line)")
        if line != "[1,2]" { #expect(found.problem.hasPrefix(problem), "\(found)") }
        #expect(found.schemaPath == schemaPath, "\(found)")
        #expect(found.description.hasPrefix("protocol error: line 4 of the app's stdout: "), "\(found)")
        #expect(found.description.hasSuffix("; the line: \(line)"), "\(found)")
    }

    @Test func aLineThatIsNotJSONOrTooLongIsNamedAndCut() throws {
        let (violation, _) = AppProtocolSchema.violation(inLine: "downloading 40 %", number: 1)
        #expect(violation?.problem == "the line is not JSON" && violation?.schemaPath == "#")
        let long = #"{"type":"event","t":5,"name":"error","message":""# + String(repeating: "x", count: 500) + "\", \"bad\""
        let (cut, _) = AppProtocolSchema.violation(inLine: long, number: 2)
        #expect(cut?.line.count == 201 && cut?.line.hasSuffix("…") == true, "\(String(describing: cut))")
        // Valid by the schema but not by the wire types: a date that is not RFC 3339.
        let (date, _) = AppProtocolSchema.violation(
            inLine: #"{"type":"event","t":5,"name":"licenseAcquired","download":"d","expiration":"tomorrow"}"#, number: 3)
        #expect(date?.schemaPath == "#/$defs/appLine" && date?.problem.contains("2026-11-25T13:07:59Z") == true, "\(String(describing: date))")
    }
}

extension AppProtocolSchemaTests {
    /// The page's examples pass this validator too (CI checks them with python3-jsonschema:
    /// `.ci/check-protocol-schema`), so the two validators agree on them.
    @Test func everyExampleOfTheProtocolPageIsValid() throws {
        let page = try String(contentsOf: Self.docs.appendingPathComponent("app-protocol.md"), encoding: .utf8)
        let blocks = page.components(separatedBy: "```json\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        // A block inside a list item is indented: its lines are read as .ci/check-protocol-schema reads them.
        let lines = blocks.flatMap { $0.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } }
            .filter { !$0.isEmpty }
        #expect(lines.count >= 30, "\(lines.count) example lines")
        for line in lines {
            #expect(AppProtocolSchema.validator.firstFailure(of: try JSONValue.parse(line)) == nil, "\(line)")
        }
    }
}
