import BenchCore
import Testing
@testable import LinkConditioner

@Suite("PathPublisher")
struct PathPublisherTests {
    let both = NetworkPath(interfaces: [
        PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "127.0.0.2:8080"),
        PathInterface(kind: .cellular, isExpensive: true, isConstrained: false, endpoint: "127.0.0.3:8080"),
    ])
    let cellularOnly = NetworkPath(interfaces: [
        PathInterface(kind: .cellular, isExpensive: true, isConstrained: false, endpoint: "127.0.0.3:8080"),
    ])
    let none = NetworkPath(interfaces: [])
    let ms: UInt64 = 1_000_000

    @Test("immediate: published at once, and only if it differs")
    func immediate() {
        var publisher = PathPublisher(initial: both, now: 0)
        publisher.pathChanged(to: cellularOnly, policy: .immediate, now: 100 * ms)
        #expect(publisher.nextDeadline() == 100 * ms)
        #expect(publisher.advance(to: 100 * ms) == [cellularOnly])
        #expect(publisher.lastPublished == cellularOnly)
        // The same path again: nothing to tell.
        publisher.pathChanged(to: cellularOnly, policy: .immediate, now: 200 * ms)
        #expect(publisher.advance(to: 200 * ms) == [])
        #expect(publisher.nextDeadline() == nil)
    }

    @Test("a state change that leaves the true path as it was tells a path a withheld change hid")
    func stateChangeAfterAWithheldChange() {
        var publisher = PathPublisher(initial: both, now: 0)
        publisher.pathChanged(to: cellularOnly, policy: .immediate, now: 1 * ms)
        #expect(publisher.advance(to: 1 * ms) == [cellularOnly])
        publisher.pathChanged(to: both, policy: .withheld, now: 2 * ms)
        #expect(publisher.advance(to: 2 * ms) == [])
        publisher.stateChanged(policy: .withheld, now: 3 * ms)
        #expect(publisher.advance(to: 3 * ms) == [], "withheld again: still not told")
        publisher.stateChanged(policy: .delayed(.milliseconds(5)), now: 4 * ms)
        #expect(publisher.advance(to: 8 * ms) == [])
        #expect(publisher.advance(to: 9 * ms) == [both])
        publisher.stateChanged(policy: .immediate, now: 10 * ms)
        #expect(publisher.nextDeadline() == nil, "the app already sees the true path: nothing to tell")
    }

    @Test("delayed: published after the delay")
    func delayed() {
        var publisher = PathPublisher(initial: both, now: 0)
        publisher.pathChanged(to: none, policy: .delayed(.seconds(2)), now: 1000 * ms)
        #expect(publisher.nextDeadline() == 3000 * ms)
        #expect(publisher.advance(to: 2999 * ms) == [])
        #expect(publisher.lastPublished == both)  // the app still believes it is online
        #expect(publisher.advance(to: 3001 * ms) == [none])
        #expect(publisher.nextDeadline() == nil)
    }

    @Test("a newer change supersedes a pending one: never out of order, never stale")
    func newerChangeSupersedes() {
        var publisher = PathPublisher(initial: both, now: 0)
        // WiFi drops; the OS will say so in 5 s...
        publisher.pathChanged(to: cellularOnly, policy: .delayed(.seconds(5)), now: 0)
        // ...but at 1 s cellular drops too, reported after 1 s: only the newest truth goes out.
        publisher.pathChanged(to: none, policy: .delayed(.seconds(1)), now: 1000 * ms)
        #expect(publisher.nextDeadline() == 2000 * ms)
        #expect(publisher.advance(to: 10_000 * ms) == [none])
        // A slow report followed by a quick one: the quick one replaces it.
        publisher.pathChanged(to: both, policy: .delayed(.seconds(3)), now: 11_000 * ms)
        publisher.pathChanged(to: cellularOnly, policy: .immediate, now: 11_500 * ms)
        #expect(publisher.advance(to: 11_500 * ms) == [cellularOnly])
        #expect(publisher.advance(to: 20_000 * ms) == [])
    }

    @Test("withheld: the app keeps the stale path until an immediate change tells the truth")
    func withheld() {
        var publisher = PathPublisher(initial: both, now: 0)
        // A blackholed WiFi that the OS never reports.
        publisher.pathChanged(to: cellularOnly, policy: .withheld, now: 0)
        #expect(publisher.nextDeadline() == nil)
        #expect(publisher.advance(to: 60_000 * ms) == [])
        #expect(publisher.lastPublished == both)
        #expect(publisher.current == cellularOnly)
        // A withheld change also cancels a pending delayed one.
        publisher.pathChanged(to: none, policy: .delayed(.seconds(1)), now: 61_000 * ms)
        publisher.pathChanged(to: cellularOnly, policy: .withheld, now: 61_500 * ms)
        #expect(publisher.advance(to: 70_000 * ms) == [])
        // Later an immediate change: the app learns the current truth.
        publisher.pathChanged(to: none, policy: .immediate, now: 80_000 * ms)
        #expect(publisher.advance(to: 80_000 * ms) == [none])
    }

    @Test("a delayed change back to what the app already sees is not republished")
    func flapIsNotRepublished() {
        var publisher = PathPublisher(initial: both, now: 0)
        publisher.pathChanged(to: cellularOnly, policy: .delayed(.seconds(2)), now: 0)
        publisher.pathChanged(to: both, policy: .delayed(.seconds(2)), now: 1000 * ms)
        #expect(publisher.advance(to: 5000 * ms) == [])
        #expect(publisher.lastPublished == both)
    }
}
