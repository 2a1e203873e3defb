import BenchCore
import ControlAPI
import Testing

/// Each toxic onto the stage of Deadzone's link it names, `downstream` onto the downlink.
@Suite struct ToxicLinkTests {
    private func toxic(_ type: ToxicType, _ attributes: [String: Double], stream: ToxicStream = .downstream, toxicity: Double = 1) -> Toxic {
        Toxic(name: "\(type.rawValue)-\(attributes.count)-\(stream)", type: type, stream: stream, toxicity: toxicity, attributes: attributes)
    }

    @Test func latenciesAddAndTheLowestRateWins() {
        let link = ToxicLink.link(for: [
            toxic(.latency, ["latency": 100, "jitter": 10]), toxic(.latency, ["latency": 50]),
            toxic(.bandwidth, ["rate": 100]), toxic(.bandwidth, ["rate": 50]),
            toxic(.latency, ["latency": 7], stream: .upstream),
        ])
        #expect(link.downlink.delay == .milliseconds(150) && link.downlink.jitter == .milliseconds(10))
        #expect(link.downlink.rate == .constant(bitsPerSecond: 400_000), "50 KB/s of 1000 bytes")
        #expect(link.uplink.delay == .milliseconds(7) && link.uplink.rate == .unlimited)
    }

    @Test func aRateOfZeroLimitsNothingAndAnIdleToxicNothingEither() {
        let link = ToxicLink.link(for: [toxic(.bandwidth, ["rate": 0]), toxic(.latency, ["latency": 500], toxicity: 0)])
        #expect(link == InterfaceLink())
    }

    @Test func connectionToxicsBecomeConnectionFaults() {
        let link = ToxicLink.link(for: [
            toxic(.timeout, ["timeout": 2000]), toxic(.resetPeer, ["timeout": 500], stream: .upstream),
            toxic(.slowClose, ["delay": 300]), toxic(.limitData, ["bytes": 1000]), toxic(.limitData, ["bytes": 400], stream: .upstream),
        ])
        #expect(link.downlink.discards && !link.uplink.discards)
        #expect(link.faults.closeAfterTime == .seconds(2) && link.faults.resetAfterTime == .milliseconds(500))
        #expect(link.faults.closeDelay == .milliseconds(300) && link.faults.closeAfterBytes == 400)
    }

    @Test func aTimeoutOfZeroNeverCloses() {
        let link = ToxicLink.link(for: [toxic(.timeout, ["timeout": 0], stream: .upstream)])
        #expect(link.uplink.discards && link.faults.closeAfterTime == nil)
    }

    @Test func slicerAndPacketLoss() {
        let link = ToxicLink.link(for: [
            toxic(.slicer, ["average_size": 100, "size_variation": 20, "delay": 1500]),
            toxic(.packetLoss, ["probability": 0.5], stream: .upstream), toxic(.packetLoss, ["probability": 0.5], stream: .upstream),
        ])
        #expect(link.downlink.slicing == LinkDirectionParameters.Slicing(averageBytes: 100, variationBytes: 20, gap: .microseconds(1500)))
        #expect(link.uplink.loss == .bernoulli(probability: 0.75), "two independent losses of one half lose three quarters")
    }

    @Test func theDifferencesNameWhatTheToxicsUse() {
        let notes = ToxicLink.differences(for: [toxic(.bandwidth, ["rate": 10]), toxic(.limitData, ["bytes": 5])])
        #expect(notes.count == 2 && notes[0].hasPrefix("bandwidth: the rate is shared") && notes[1].hasPrefix("limit_data"))
        #expect(ToxicLink.differences(for: []).isEmpty)
    }
}
