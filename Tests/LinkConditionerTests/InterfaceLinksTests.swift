import BenchCore
import Testing
@testable import LinkConditioner

/// One interface's byte path: a chain per direction, then the connection faults
/// both directions share. These tests follow the bytes with a hand-moved clock.
@Suite("InterfaceLinks: chains, then connection faults")
struct InterfaceLinksTests {
    typealias Links = InterfaceLinks<StreamBytes>

    func links(downlink: LinkDirectionParameters = .transparent, uplink: LinkDirectionParameters = .transparent,
               faults: ConnectionFaults) -> Links {
        Links(kind: .wifi, link: InterfaceLink(downlink: downlink, uplink: uplink, faults: faults),
              generator: SeededGenerator(seed: 1), now: 0)
    }

    @Test("faults count a connection's bytes in the order they leave the links, not the order they were read")
    func faultsMeetBytesAsTheyLeaveTheLink() {
        // The uplink is 10 ms long, the downlink instantaneous; close after 1000 bytes.
        var links = links(uplink: LinkDirectionParameters(delay: .milliseconds(10)),
                          faults: ConnectionFaults(closeAfterBytes: 1000))
        links.uplink.enqueue(StreamBytes(0..<600), for: 1, now: 0)  // read first...
        links.downlink.enqueue(StreamBytes(0..<600), for: 1, now: 0)
        // ...but the downlink's bytes leave first, so they are the ones counted whole.
        #expect(links.advance(.uplink, to: 0).isEmpty)
        #expect(links.advance(.downlink, to: 0) == [.deliver(1, StreamBytes(0..<600))])
        #expect(links.advance(.uplink, to: 10 * millisecond)
            == [.deliver(1, StreamBytes(0..<400)), .fault(1, .close(reason: "close after 1000 bytes"))])
        #expect(links.faults.forwardedBytes(for: 1) == 1000)
    }

    @Test("a fault is reported once, right after the last bytes it let through; nothing passes after it")
    func faultReportedOnceAfterItsLastBytes() {
        var links = links(faults: ConnectionFaults(resetAfterBytes: 1000))
        #expect(links.bypass(StreamBytes(0..<800), of: 1, now: 0) == [.deliver(1, StreamBytes(0..<800))])
        #expect(links.bypass(StreamBytes(800..<1600), of: 1, now: 0)
            == [.deliver(1, StreamBytes(800..<1000)), .fault(1, .reset(reason: "reset after 1000 bytes"))])
        #expect(links.bypass(StreamBytes(1600..<1700), of: 1, now: 0).isEmpty)
        // Another connection of the interface is not touched.
        #expect(links.bypass(StreamBytes(0..<900), of: 2, now: 0) == [.deliver(2, StreamBytes(0..<900))])
    }

    @Test("a lost quantum passes through as a loss; its bytes are faulted only when they are delivered")
    func lossPassesThroughUntouched() {
        // 12 Mbit/s, everything lost: the fault stage sees nothing until the loss stops.
        var links = links(downlink: LinkDirectionParameters(rate: mbit(12), loss: .bernoulli(probability: 1)),
                          faults: ConnectionFaults(closeAfterBytes: 1000))
        links.downlink.enqueue(StreamBytes(0..<1500), for: 1, now: 0)
        let lost = links.advance(.downlink, to: millisecond)
        #expect(lost.count == 1)
        guard case .lost(1, bytes: 1500, _)? = lost.first else {
            Issue.record("expected one lost quantum, got \(lost)")
            return
        }
        #expect(links.faults.forwardedBytes(for: 1) == 0)
        links.downlink.update(parameters: LinkDirectionParameters(rate: mbit(12)), retransmissionTimeout: 0,
                              now: millisecond)
        #expect(links.advance(.downlink, to: second)
            == [.deliver(1, StreamBytes(0..<1000)), .fault(1, .close(reason: "close after 1000 bytes"))])
    }

    @Test("removing a connection forgets it in both chains and in the faults")
    func removeForgetsEverywhere() {
        var links = links(downlink: LinkDirectionParameters(delay: .milliseconds(5)),
                          uplink: LinkDirectionParameters(rate: mbit(1)),
                          faults: ConnectionFaults(closeAfterBytes: 100_000))
        _ = links.bypass(StreamBytes(0..<10), of: 1, now: 0)
        links.downlink.enqueue(StreamBytes(0..<300), for: 1, now: 0)
        links.uplink.enqueue(StreamBytes(0..<4000), for: 1, now: 0)
        links.downlink.enqueue(StreamBytes(0..<50), for: 2, now: 0)
        #expect(links.removeConnection(1) == 4300)
        #expect(links.faults.forwardedBytes(for: 1) == 0)
        #expect(links.downlink.pendingBytes(for: 1) == 0 && links.uplink.pendingBytes(for: 1) == 0)
        #expect(links.advance(.downlink, to: second) == [.deliver(2, StreamBytes(0..<50))])
        #expect(links.advance(.uplink, to: second).isEmpty)
        #expect(links.nextDeadline() == nil)
    }
}
