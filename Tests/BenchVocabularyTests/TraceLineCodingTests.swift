import AppProtocol
import BenchVocabulary
import Foundation
import Testing

/// `trace.jsonl` as readers see it: every entry a flat object per source with a
/// discriminator and named fields, no Swift-synthesized `_0`, and read back as written.
@Suite struct TraceLineCodingTests {
    /// The encoder `trace.jsonl` is written with (`TraceFile`).
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Every key of every object in `json`, at any depth.
    static func keys(of json: Any) -> [String] {
        if let object = json as? [String: Any] { return object.keys + object.values.flatMap(keys(of:)) }
        if let array = json as? [Any] { return array.flatMap(keys(of:)) }
        return []
    }

    static func object(_ entry: TraceEntry) throws -> [String: Any] {
        let data = try encoder.encode(entry)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("no key of any trace line is a synthesized positional key (_0, _1…)")
    func noPositionalKeys() throws {
        let positional = try Regex("^_[0-9]+$")
        for entry in TraceSamples.entries {
            let line = String(decoding: try Self.encoder.encode(entry), as: UTF8.self)
            let bad = Self.keys(of: try Self.object(entry)).filter { $0.wholeMatch(of: positional) != nil }
            #expect(bad.isEmpty, "keys \(bad) in \(line)")
        }
    }

    @Test("every trace line decodes to the entry it was encoded from")
    func roundTrip() throws {
        for entry in TraceSamples.entries {
            let data = try Self.encoder.encode(entry)
            let decoded = try JSONDecoder().decode(TraceEntry.self, from: data)
            #expect(decoded == entry, "\(String(decoding: data, as: UTF8.self))")
        }
    }

    @Test("a line is t, source and the source's event, each source's event with its discriminator")
    func lineShape() throws {
        var seen: [String: Set<String>] = [:]
        for entry in TraceSamples.entries {
            let line = try Self.object(entry)
            #expect(Set(line.keys) == ["t", "source", "event"])
            #expect(line["t"] as? UInt64 == entry.t)
            let source = try #require(line["source"] as? String)
            let event = try #require(line["event"] as? [String: Any])
            let discriminator = switch source {
            case "conditioner", "harness": "type"
            case "license": "event"
            case "agent": "name"
            default: "path"  // an origin record: a struct, no cases
            }
            seen[source, default: []].insert(try #require(event[discriminator] as? String, "\(source) without \(discriminator)"))
        }
        // One sample of every kind: a new case without a sample fails here.
        #expect(Set(seen.keys) == Set(TraceEvent.Source.allCases.map(\.rawValue)))
        #expect(seen["conditioner"] == Set(ConditionerEvent.Kind.Name.allCases.map(\.rawValue)))
        #expect(seen["harness"] == Set(HarnessEvent.Name.allCases.map(\.rawValue)))
        #expect(seen["license"] == TraceSamples.licenseNames)
        #expect(seen["agent"] == TraceSamples.agentNames)
    }

    @Test("a harness line as docs/report-schema.md shows it")
    func harnessLine() throws {
        let entry = TraceEntry(t: 4_000_000_000, .harness(.interfaceSet(.wifi, up: false, mode: .reset)))
        let line = String(decoding: try Self.encoder.encode(entry), as: UTF8.self)
        #expect(line == #"{"event":{"interface":"wifi","mode":"reset","type":"interfaceSet","up":false},"source":"harness","t":4000000000}"#)
    }

    @Test("a line of an unknown source or type is refused, naming it")
    func unknownKinds() {
        for line in [
            #"{"t":1,"source":"kernel","event":{}}"#,
            #"{"t":1,"source":"harness","event":{"type":"teleported"}}"#,
            #"{"t":1,"source":"conditioner","event":{"type":"interfaceDown","interface":"wifi"}}"#,
        ] {
            #expect(throws: DecodingError.self, "\(line)") {
                try JSONDecoder().decode(TraceEntry.self, from: Data(line.utf8))
            }
        }
    }
}

/// docs/report-schema.md in step with the code: every trace line it shows is one.
@Suite struct DocumentedTraceLineTests {
    static let schema = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/report-schema.md")

    @Test("every example line of trace.jsonl in docs/report-schema.md reads and is written back byte for byte")
    func documentedLinesRoundTrip() throws {
        let text = try String(contentsOf: Self.schema, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init).filter { $0.hasPrefix(#"{"event":{"#) }
        var sources: Set<String> = []
        for line in lines {
            let entry = try JSONDecoder().decode(TraceEntry.self, from: Data(line.utf8))
            sources.insert(entry.event.source.rawValue)
            #expect(String(decoding: try TraceLineCodingTests.encoder.encode(entry), as: UTF8.self) == line)
        }
        // An example line of each source.
        #expect(sources == Set(TraceEvent.Source.allCases.map(\.rawValue)))
    }
}

/// The `scenario` of a line: written when the entry has one, left out otherwise, read back.
@Suite struct TraceLineScenarioTests {
    @Test func aTaggedLineCarriesItsScenarioAndAnUntaggedOneHasNoKey() throws {
        let tagged = TraceEntry(t: 7, .harness(.note("x")), scenario: "crash-recovery")
        let line = String(decoding: try TraceLineCodingTests.encoder.encode(tagged), as: UTF8.self)
        #expect(line.contains("\"scenario\":\"crash-recovery\""), "\(line)")
        #expect(try JSONDecoder().decode(TraceEntry.self, from: Data(line.utf8)) == tagged)
        let plain = TraceEntry(t: 7, .harness(.note("x")))
        let old = String(decoding: try TraceLineCodingTests.encoder.encode(plain), as: UTF8.self)
        #expect(!old.contains("scenario"))
        #expect(try JSONDecoder().decode(TraceEntry.self, from: Data(old.utf8)).scenario == nil)
    }
}
