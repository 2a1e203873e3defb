import BenchCore
import Testing
@testable import LinkConditioner

/// What `bench proxy` prints about the path it publishes.
@Suite struct TerminalOutputTests {
    @Test func aPathIsDescribedByItsInterfacesWifiFirstWithTheirFlags() {
        let path = NetworkPath(interfaces: [
            PathInterface(kind: .cellular, isExpensive: true, isConstrained: false, endpoint: "127.0.0.3:1"),
            PathInterface(kind: .wifi, isExpensive: false, isConstrained: true, endpoint: "127.0.0.2:1"),
        ])
        #expect(TerminalEventPrinter.describe(path) == "satisfied via wifi (constrained), cellular (expensive)")
        #expect(TerminalEventPrinter.describe(NetworkPath(interfaces: [])) == "unsatisfied")
    }
}
