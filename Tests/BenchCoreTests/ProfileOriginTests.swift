import Testing
@testable import BenchCore

/// A profile's `origin:` section: windows of origin faults on the timeline, read and
/// checked like the rest of the profile.
struct ProfileOriginTests {
    static let head = "name: t\nduration: 2m\n"

    @Test func readsEveryFaultForm() throws {
        let yaml = Self.head + """
            origin:
              - {at: 10s, for: 20s, label: station portal, fault: captive_portal}
              - {at: 15s, for: 5s, path: "/videos/*/*.m3u8", fault: {status: 503}}
              - {at: 20s, for: 5s, fault: {status: {code: 503, retry_after: 2s}}}
              - {at: 30s, for: 10s, path: "/videos/**/*.ts", fault: stall}
              - {at: 40s, for: 10s, fault: {stall: {after: 16KiB, for: 30s}}}
              - {at: 50s, for: 1s, fault: {truncate: 1KB}}
              - {at: 60s, for: 1s, fault: {slow_first_byte: 1500ms}}
              - {at: 70s, for: 50s, fault: malformed_playlist}
            """
        let profile = try Profile.parse(yaml: yaml, sourcePath: "p.yaml")
        #expect(profile.origin == [
            OriginFaultWindow(at: .seconds(10), duration: .seconds(20), label: "station portal", fault: .captivePortal),
            OriginFaultWindow(
                at: .seconds(15), duration: .seconds(5), path: "/videos/*/*.m3u8", fault: .status(code: 503, retryAfter: nil)),
            OriginFaultWindow(at: .seconds(20), duration: .seconds(5), fault: .status(code: 503, retryAfter: .seconds(2))),
            OriginFaultWindow(
                at: .seconds(30), duration: .seconds(10), path: "/videos/**/*.ts", fault: .stall(afterBytes: 0, duration: nil)),
            OriginFaultWindow(at: .seconds(40), duration: .seconds(10), fault: .stall(afterBytes: 16384, duration: .seconds(30))),
            OriginFaultWindow(at: .seconds(50), duration: .seconds(1), fault: .truncate(afterBytes: 1000)),
            OriginFaultWindow(at: .seconds(60), duration: .seconds(1), fault: .slowFirstByte(.milliseconds(1500))),
            OriginFaultWindow(at: .seconds(70), duration: .seconds(50), fault: .malformedPlaylist),
        ])
        #expect(profile.origin[0].path == "/**" && profile.origin[0].end == .seconds(30))
        #expect(profile.summary.contains("origin faults: 8"))
        #expect(profile.summary.contains("10s–30s  [station portal] captive portal on every path"))
    }

    @Test func noSectionMeansNoFaults() throws {
        #expect(try Profile.parse(yaml: Self.head, sourcePath: nil).origin.isEmpty)
        #expect(try Profile.parse(yaml: Self.head + "origin:\n", sourcePath: nil).origin.isEmpty)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var title: String
        var entries: String
        var kind: ProfileError.Kind
        var keyPath: String
        var hint: String
        var testDescription: String { title }
    }

    static let cases: [Case] = [
        Case(title: "not a list", entries: "{at: 1s}", kind: .invalidValue, keyPath: "origin", hint: "a list of origin faults"),
        Case(title: "missing for", entries: "[{at: 1s, fault: stall}]", kind: .missingKey, keyPath: "origin[0].for",
             hint: "how long the fault lasts"),
        Case(title: "missing fault", entries: "[{at: 1s, for: 2s}]", kind: .missingKey, keyPath: "origin[0].fault",
             hint: "captive_portal"),
        Case(title: "typo in a key", entries: "[{at: 1s, for: 2s, falut: stall}]", kind: .unknownKey,
             keyPath: "origin[0].falut", hint: "Did you mean 'fault'?"),
        Case(title: "zero length", entries: "[{at: 1s, for: 0s, fault: stall}]", kind: .invalidValue, keyPath: "origin[0].for",
             hint: "longer than 0s"),
        Case(title: "past the end", entries: "[{at: 1m50s, for: 20s, fault: stall}]", kind: .invalidTimeline,
             keyPath: "origin[0].for", hint: "would end at 2m10s, after the profile's end (2m)"),
        Case(title: "begins at the end", entries: "[{at: 2m, for: 1s, fault: stall}]", kind: .invalidTimeline,
             keyPath: "origin[0].at", hint: "lengthen duration or move the fault earlier"),
        Case(title: "out of order", entries: "[{at: 30s, for: 1s, fault: stall}, {at: 10s, for: 1s, fault: stall}]",
             kind: .invalidTimeline, keyPath: "origin[1].at", hint: "comes before origin[0] (30s)"),
        Case(title: "not an error status", entries: "[{at: 1s, for: 1s, fault: {status: 200}}]", kind: .invalidValue,
             keyPath: "origin[0].fault.status", hint: "for a 200 login page use captive_portal"),
        Case(title: "status without a code", entries: "[{at: 1s, for: 1s, fault: {status: {retry_after: 2s}}}]",
             kind: .missingKey, keyPath: "origin[0].fault.status.code", hint: "from 400 to 599"),
        Case(title: "unknown fault name", entries: "[{at: 1s, for: 1s, fault: captive_portl}]", kind: .invalidValue,
             keyPath: "origin[0].fault", hint: "did you mean 'captive_portal'?"),
        Case(title: "two faults at once", entries: "[{at: 1s, for: 1s, fault: {status: 503, truncate: 1KB}}]",
             kind: .invalidValue, keyPath: "origin[0].fault", hint: "give exactly one fault"),
        Case(title: "a bare fault that needs a value", entries: "[{at: 1s, for: 1s, fault: status}]", kind: .invalidValue,
             keyPath: "origin[0].fault", hint: "'status' needs a value"),
        Case(title: "settings on a fault that takes none",
             entries: "[{at: 1s, for: 1s, fault: {captive_portal: yes}}]", kind: .invalidValue,
             keyPath: "origin[0].fault.captive_portal", hint: "takes no settings"),
        Case(title: "a path that is not absolute", entries: "[{at: 1s, for: 1s, path: videos/*, fault: stall}]",
             kind: .invalidValue, keyPath: "origin[0].path", hint: "does not start with /"),
        Case(title: "a bad stall size", entries: "[{at: 1s, for: 1s, fault: {stall: {after: 16kb}}}]", kind: .invalidValue,
             keyPath: "origin[0].fault.stall.after", hint: "expected a size like 1500"),
    ]

    @Test(arguments: cases)
    func validationError(_ c: Case) {
        do {
            let profile = try Profile.parse(yaml: Self.head + "origin: \(c.entries)\n", sourcePath: "Profiles/test.yaml")
            Issue.record("\(c.title): expected an error, got \(profile.origin)")
        } catch {
            #expect(error.kind == c.kind, "\(error)")
            #expect(error.keyPath == c.keyPath, "\(error)")
            #expect(error.line == 3, "\(error)")
            #expect(error.description.hasPrefix("Profiles/test.yaml:3:"), "\(error)")
            #expect(error.description.contains(c.hint), "\(error)")
        }
    }
}
