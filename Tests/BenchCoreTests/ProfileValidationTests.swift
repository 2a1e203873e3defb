import Testing
@testable import BenchCore

/// Every validation error names the file, the key path and what is allowed.
struct ProfileValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var title: String
        var yaml: String
        var kind: ProfileError.Kind
        var keyPath: String
        /// Words the message must contain (what is wrong or what is allowed).
        var hint: String
        var line: Int? = nil

        var testDescription: String { title }
    }

    static let head = "name: t\nduration: 1m\n"

    static let cases: [Case] = [
        Case(title: "unknown top-level key", yaml: "name: t\nduraton: 1m\n", kind: .unknownKey,
             keyPath: "duraton", hint: "did you mean 'duration'? Allowed keys: name, description", line: 2),
        Case(title: "missing name", yaml: "duration: 1m\n", kind: .missingKey, keyPath: "name", hint: "missing 'name'"),
        Case(title: "empty name", yaml: "name:\nduration: 1m\n", kind: .missingKey, keyPath: "name", hint: "missing 'name'"),
        Case(title: "blank name", yaml: "name: \"  \"\nduration: 1m\n", kind: .invalidValue, keyPath: "name",
             hint: "the name is empty"),
        Case(title: "missing duration", yaml: "name: t\n", kind: .missingKey, keyPath: "duration", hint: "like 100ms"),
        Case(title: "zero duration", yaml: "name: t\nduration: 0s\n", kind: .invalidValue, keyPath: "duration",
             hint: "longer than 0s"),
        Case(title: "negative seed", yaml: head + "seed: -1\n", kind: .invalidValue, keyPath: "seed", hint: "whole number"),
        Case(title: "bad rate", yaml: head + "interfaces:\n  cellular:\n    downlink: {rate: 780kbits}\n",
             kind: .invalidValue, keyPath: "interfaces.cellular.downlink.rate",
             hint: "expected a rate like 780kbit/s, 1.5Mbit/s or unlimited", line: 5),
        Case(title: "negative delay", yaml: head + "interfaces: {wifi: {uplink: {delay: -5ms}}}\n",
             kind: .invalidValue, keyPath: "interfaces.wifi.uplink.delay", hint: "negative"),
        Case(title: "NaN jitter", yaml: head + "interfaces: {wifi: {downlink: {jitter: .nan}}}\n",
             kind: .invalidValue, keyPath: "interfaces.wifi.downlink.jitter", hint: "expected a duration like 100ms"),
        Case(title: "loss above 100%", yaml: head + "interfaces: {wifi: {downlink: {loss: 150%}}}\n",
             kind: .invalidValue, keyPath: "interfaces.wifi.downlink.loss", hint: "between 0 and 1"),
        Case(title: "loss as a bare percentage", yaml: head + "interfaces: {wifi: {downlink: {loss: 5}}}\n",
             kind: .invalidValue, keyPath: "interfaces.wifi.downlink.loss", hint: "write 5%"),
        Case(title: "Gilbert-Elliott probability out of range",
             yaml: head + "interfaces: {wifi: {downlink: {loss: {gilbert_elliott: {p: 2, r: 0.3}}}}}\n",
             kind: .invalidValue, keyPath: "interfaces.wifi.downlink.loss.gilbert_elliott.p", hint: "between 0 and 1"),
        Case(title: "Gilbert-Elliott without r",
             yaml: head + "interfaces: {wifi: {downlink: {loss: {gilbert_elliott: {p: 0.1}}}}}\n",
             kind: .missingKey, keyPath: "interfaces.wifi.downlink.loss.gilbert_elliott.r", hint: "bad→good"),
        Case(title: "unknown loss model", yaml: head + "interfaces: {wifi: {downlink: {loss: {markov: 1}}}}\n",
             kind: .unknownKey, keyPath: "interfaces.wifi.downlink.loss.markov", hint: "bernoulli, gilbert_elliott"),
        Case(title: "reset probability above 1", yaml: head + "interfaces: {cellular: {faults: {reset_per_mb: 1.5}}}\n",
             kind: .invalidValue, keyPath: "interfaces.cellular.faults.reset_per_mb", hint: "more than 1"),
        Case(title: "typo in faults", yaml: head + "interfaces: {cellular: {faults: {reset_afterr: 5MB}}}\n",
             kind: .unknownKey, keyPath: "interfaces.cellular.faults.reset_afterr", hint: "did you mean 'reset_after'?"),
        Case(title: "typo in a direction", yaml: head + "interfaces:\n  wifi:\n    downlink: {dealy: 5ms}\n",
             kind: .unknownKey, keyPath: "interfaces.wifi.downlink.dealy", hint: "Allowed keys: rate, delay, jitter, loss, queue",
             line: 5),
        Case(title: "empty queue", yaml: head + "interfaces: {wifi: {downlink: {queue: 0}}}\n",
             kind: .invalidValue, keyPath: "interfaces.wifi.downlink.queue", hint: "at least one byte"),
        Case(title: "bad size", yaml: head + "interfaces: {wifi: {downlink: {queue: 5Mb}}}\n",
             kind: .invalidValue, keyPath: "interfaces.wifi.downlink.queue", hint: "expected a size like 1500, 64KiB or 1MB"),
        Case(title: "unknown interface", yaml: head + "interfaces:\n  lte: {state: up}\n",
             kind: .unknownKey, keyPath: "interfaces.lte", hint: "the interfaces are wifi and cellular", line: 4),
        Case(title: "unknown interface in a phase", yaml: head + "timeline:\n  - {at: 1s, ethernet: down}\n",
             kind: .unknownKey, keyPath: "timeline[0].ethernet", hint: "interfaces it changes (wifi and cellular)"),
        Case(title: "unknown down mode", yaml: head + "interfaces: {wifi: {state: {down: blackholed}}}\n",
             kind: .invalidValue, keyPath: "interfaces.wifi.state.down", hint: "expected reset, blackhole or refuse"),
        Case(title: "down mode without down:", yaml: head + "interfaces: {wifi: {state: refuse}}\n",
             kind: .invalidValue, keyPath: "interfaces.wifi.state", hint: "write {down: refuse}"),
        Case(title: "unknown state", yaml: head + "interfaces: {wifi: {state: off}}\n",
             kind: .invalidValue, keyPath: "interfaces.wifi.state", hint: "expected up, down, or {down:"),
        Case(title: "not a boolean", yaml: head + "interfaces: {cellular: {expensive: maybe}}\n",
             kind: .invalidValue, keyPath: "interfaces.cellular.expensive", hint: "true or false"),
        Case(title: "latency and delay together", yaml: head + "interfaces: {wifi: {latency: 100ms, uplink: {delay: 5ms}}}\n",
             kind: .invalidValue, keyPath: "interfaces.wifi.latency", hint: "not both"),
        Case(title: "unknown path update policy", yaml: head + "path_updates: late\n",
             kind: .invalidValue, keyPath: "path_updates", hint: "immediate, withheld or {delay: 2s}"),
        Case(title: "unknown trace format", yaml: head + "interfaces: {wifi: {downlink: {rate: {trace: x, format: pcap}}}}\n",
             kind: .invalidValue, keyPath: "interfaces.wifi.downlink.rate.format", hint: "mahimahi, norway-hsdpa"),
        Case(title: "timeline not a list", yaml: head + "timeline: {at: 1s}\n",
             kind: .invalidValue, keyPath: "timeline", hint: "a list of phases"),
        Case(title: "phase without at", yaml: head + "timeline:\n  - {wifi: down}\n",
             kind: .missingKey, keyPath: "timeline[0].at", hint: "missing 'at'"),
        Case(title: "phase beyond the duration", yaml: head + "timeline:\n  - {at: 10s, wifi: down}\n  - {at: 61s, wifi: up}\n",
             kind: .invalidTimeline, keyPath: "timeline[1].at", hint: "1m1s is beyond the profile's duration (1m)", line: 5),
        Case(title: "phases out of order", yaml: head + "timeline:\n  - {at: 30s, wifi: down}\n  - {at: 20s, wifi: up}\n",
             kind: .invalidTimeline, keyPath: "timeline[1].at", hint: "comes before timeline[0] (30s)"),
        Case(title: "two phases at the same offset", yaml: head + "timeline:\n  - {at: 30s, wifi: down}\n  - {at: 30s, cellular: down}\n",
             kind: .invalidTimeline, keyPath: "timeline[1].at", hint: "put both changes in one phase"),
        Case(title: "phase that changes no interface", yaml: head + "timeline:\n  - {at: 30s, label: nothing}\n",
             kind: .invalidValue, keyPath: "timeline[0]", hint: "must change wifi or cellular"),
        Case(title: "phase with an empty change", yaml: head + "timeline:\n  - {at: 30s, wifi: {}}\n",
             kind: .invalidValue, keyPath: "timeline[0].wifi", hint: "changes nothing on wifi"),
        Case(title: "bad phase offset", yaml: head + "timeline:\n  - {at: soon, wifi: down}\n",
             kind: .invalidValue, keyPath: "timeline[0].at", hint: "expected a duration like 100ms"),
    ]

    @Test(arguments: cases)
    func validationError(_ c: Case) {
        do {
            let profile = try Profile.parse(yaml: c.yaml, sourcePath: "Profiles/test.yaml")
            Issue.record("\(c.title): expected an error, got \(profile.name)")
        } catch {
            #expect(error.kind == c.kind, "\(error)")
            #expect(error.file == "Profiles/test.yaml")
            #expect(error.keyPath == c.keyPath, "\(error)")
            #expect(error.description.hasPrefix("Profiles/test.yaml:"), "\(error)")
            #expect(error.description.contains(": \(c.keyPath): "), "\(error)")
            #expect(error.description.contains(c.hint), "\(error)")
            if let line = c.line { #expect(error.line == line, "\(error)") }
        }
    }

    @Test func malformedYAMLGivesLineAndColumn() {
        let yaml = "name: t\nduration: 1m\ninterfaces:\n  wifi: state: up\n"
        do {
            _ = try Profile.parse(yaml: yaml, sourcePath: "broken.yaml")
            Issue.record("expected a YAML error")
        } catch {
            #expect(error.kind == .malformedYAML)
            #expect(error.line == 4)
            #expect(error.column != nil)
            #expect(error.description.hasPrefix("broken.yaml:4:"))
            #expect(error.description.contains("not valid YAML"))
        }
    }

    @Test func duplicateKeyIsRefused() {
        do {
            _ = try Profile.parse(yaml: "name: a\nduration: 1m\nname: b\n", sourcePath: "dup.yaml")
            Issue.record("expected a duplicate key error")
        } catch {
            #expect(error.kind == .malformedYAML)
            #expect(error.description.contains("duplicate key 'name'"))
            #expect(error.line != nil)
        }
    }

    @Test func emptyDocument() {
        #expect(throws: ProfileError.self) { try Profile.parse(yaml: "", sourcePath: "empty.yaml") }
        #expect(throws: ProfileError.self) { try Profile.parse(yaml: "- a\n- b\n", sourcePath: "list.yaml") }
    }

    @Test func textWithoutAFileIsCalledYAML() {
        do {
            _ = try Profile.parse(yaml: "name: t\n", sourcePath: nil)
        } catch {
            #expect(error.description.hasPrefix("<yaml>:"))
        }
    }

    @Test func unreadableFile() {
        do {
            _ = try Profile.load(contentsOf: "/no/such/profile.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unreadableFile)
            #expect(error.description == "/no/such/profile.yaml: no such file")
        }
    }
}
