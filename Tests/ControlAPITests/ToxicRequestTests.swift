import ControlAPI
import Testing

/// Reading a toxic from a request: toxiproxy's defaults, and a 400 naming the field for
/// what is wrong or what Deadzone cannot apply.
@Suite struct ToxicRequestTests {
    private func body(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func defaultsAreToxiproxys() throws {
        let toxic = try ToxicRequest.create(body(#"{"type": "latency", "attributes": {"latency": 300}}"#))
        #expect(toxic.name == "latency_downstream" && toxic.stream == .downstream && toxic.toxicity == 1)
        #expect(toxic.attributes == ["latency": 300, "jitter": 0], "every attribute of its type, the missing ones 0")
        let json = toxic.json.objectValue!
        #expect(json["attributes"] == .object(["latency": .number(300), "jitter": .number(0)]))
        #expect(String(decoding: toxic.json.bytes, as: UTF8.self).contains(#""latency":300"#), "whole numbers as JSON integers")
    }

    @Test(arguments: [
        (#"{"attributes": {}}"#, "missing required field: type"),
        (#"{"type": "earthquake"}"#, "invalid toxic type \"earthquake\""),
        (#"{"type": "bandwidth", "attributes": {"rate": -5}}"#, "attributes.rate must not be negative"),
        (#"{"type": "bandwidth", "attributes": {"rate": "fast"}}"#, "attributes.rate must be a number, in KB/s"),
        (#"{"type": "latency", "attributes": {"latency": 1.5}}"#, "attributes.latency must be a whole number"),
        (#"{"type": "latency", "attributes": {"delay": 10}}"#, "latency has no attribute delay"),
        (#"{"type": "latency", "stream": "sideways"}"#, "stream was invalid"),
        (#"{"type": "latency", "toxicity": 0.5}"#, "toxicity 0.5 is not modelled"),
        (#"{"type": "latency", "toxicity": true}"#, "toxicity must be a number from 0 to 1"),
        (#"{"type": "slicer", "attributes": {"average_size": 10, "size_variation": 10}}"#, "size_variation must be less than"),
        (#"{"type": "slicer"}"#, "average_size must be at least 1"),
        (#"{"type": "packet_loss", "attributes": {"probability": 2}}"#, "probability must be from 0 to 1"),
        (#"["latency"]"#, "expected a JSON object"),
    ])
    func badInputIsRefusedNamingTheField(text: String, message: String) throws {
        #expect {
            _ = try ToxicRequest.create(body(text))
        } throws: { error in
            guard let error = error as? APIError else { return false }
            return error.status == 400 && error.message.contains(message)
        }
    }

    @Test func notJSONIsA400() {
        #expect(throws: APIError.badRequest(#"bad request body: not JSON ("{nope")"#)) { try JSONValue.parse(Array("{nope".utf8)) }
    }

    @Test func anUpdateMergesAttributesAndKeepsTheRest() throws {
        let toxic = try ToxicRequest.create(body(#"{"name": "slow", "type": "latency", "stream": "upstream", "attributes": {"latency": 100, "jitter": 10}}"#))
        let updated = try ToxicRequest.update(toxic, with: body(#"{"attributes": {"jitter": 20}, "toxicity": 0}"#))
        #expect(updated.attributes == ["latency": 100, "jitter": 20] && updated.toxicity == 0 && updated.stream == .upstream)
        #expect(!updated.isActive)
        #expect(throws: APIError.self) { try ToxicRequest.update(toxic, with: body(#"{"type": "bandwidth"}"#)) }
    }
}
