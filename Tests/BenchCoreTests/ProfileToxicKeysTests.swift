import Testing
@testable import BenchCore

/// The link settings that map toxiproxy's timeout, reset_peer, slow_close and slicer
/// toxics: their profile keys, defaults, patches, errors and summaries.
struct ProfileToxicKeysTests {
    static let head = "name: t\nduration: 1m\n"

    static func parse(_ yaml: String) throws(ProfileError) -> Profile {
        try Profile.parse(yaml: head + yaml, sourcePath: "test.yaml")
    }

    @Test func theDefaultsChangeNothing() {
        let direction = LinkDirectionParameters()
        #expect(!direction.discards && direction.slicing == nil && direction.isTransparent)
        #expect(direction.summary == "unshaped")
        let faults = ConnectionFaults()
        #expect(faults.resetAfterTime == nil && faults.closeAfterTime == nil && faults.closeDelay == nil)
        #expect(faults == .none && faults.summary == "none")
    }

    @Test func everyNewKeyIsRead() throws {
        let profile = try Self.parse("""
            interfaces:
              wifi:
                downlink: {discard: true, slicing: {average: 100, variation: 20, gap: 1ms}}
                uplink: {slicing: {average: 1KiB}}
                faults: {reset_after_time: 2s, close_after_time: 5s, close_delay: 1s}
            """)
        let wifi = try #require(profile.initial[.wifi]).link
        #expect(wifi.downlink.discards)
        #expect(wifi.downlink.slicing == .init(averageBytes: 100, variationBytes: 20, gap: .milliseconds(1)))
        #expect(!wifi.uplink.discards)
        #expect(wifi.uplink.slicing == .init(averageBytes: 1024, variationBytes: 0, gap: .zero))
        #expect(wifi.faults == ConnectionFaults(resetAfterTime: .seconds(2), closeAfterTime: .seconds(5),
                                                closeDelay: .seconds(1)))
        let summary = try #require(profile.initial[.wifi]).summary
        #expect(summary.contains("downlink unlimited, slices 100B ±20B every 1ms, discards"), "\(summary)")
        #expect(summary.contains("uplink unlimited, slices 1024B"), "\(summary)")
        #expect(summary.contains("faults: reset after 2s open, close after 5s open, close delay 1s"), "\(summary)")
    }

    @Test func aPhaseSetsAndClearsThem() throws {
        let profile = try Self.parse("""
            interfaces:
              wifi: {downlink: {discard: true, slicing: {average: 100}}, faults: {close_after_time: 5s, close_delay: 1s}}
            timeline:
              - at: 10s
                wifi: {downlink: {discard: false, slicing: none}, faults: {close_after_time: none, reset_after_time: 0}}
            """)
        let after = try #require(profile.timeline.first?.changes[.wifi]).link
        #expect(!after.downlink.discards && after.downlink.slicing == nil)
        #expect(after.faults == ConnectionFaults(resetAfterTime: .zero, closeDelay: .seconds(1)))
        let changes = try #require(profile.timeline.first?.changes[.wifi])
            .changes(from: try #require(profile.initial[.wifi]))
        #expect(changes.contains("downlink delivers") && changes.contains("downlink no slicing"), "\(changes)")
    }

    @Test(arguments: [
        ("downlink: {slicing: {average: 10, variation: 10}}", "interfaces.wifi.downlink.slicing", "less than the average"),
        ("downlink: {slicing: {average: 0}}", "interfaces.wifi.downlink.slicing", "at least 1 byte"),
        ("downlink: {slicing: {variation: 10}}", "interfaces.wifi.downlink.slicing.average", "missing 'average'"),
        ("downlink: {slicing: {average: 10, gap: -1ms}}", "interfaces.wifi.downlink.slicing.gap", "negative"),
        ("downlink: {slicing: {avg: 10}}", "interfaces.wifi.downlink.slicing.avg", "average, variation, gap"),
        ("downlink: {discard: maybe}", "interfaces.wifi.downlink.discard", "true"),
        ("downlink: {discards: true}", "interfaces.wifi.downlink.discards", "did you mean 'discard'?"),
        ("faults: {reset_after_tim: 2s}", "interfaces.wifi.faults.reset_after_tim", "did you mean 'reset_after_time'?"),
        ("faults: {close_delay: 5MB}", "interfaces.wifi.faults.close_delay", "a duration like"),
    ])
    func badValuesAreRefusedByKeyPath(_ yaml: String, _ keyPath: String, _ hint: String) {
        do {
            let profile = try Self.parse("interfaces:\n  wifi: {\(yaml)}\n")
            Issue.record("expected an error, got \(profile.name)")
        } catch {
            #expect(error.keyPath == keyPath, "\(error)")
            #expect(error.description.contains(hint), "\(error)")
        }
    }
}
