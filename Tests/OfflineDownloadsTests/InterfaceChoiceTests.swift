import BenchCore
import OfflineDownloads
import Testing

@Suite("InterfaceChoice")
struct InterfaceChoiceTests {
    static let wifi = PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "127.0.0.2:8080")
    static let cellular = PathInterface(kind: .cellular, isExpensive: true, isConstrained: false, endpoint: "127.0.0.3:8080")

    struct Case: Sendable, CustomTestStringConvertible {
        var up: [PathInterface]
        var allowsCellular: Bool
        var expected: InterfaceChoice
        var testDescription: String {
            "up \(up.map(\.kind)), cellular \(allowsCellular ? "allowed" : "not allowed") → \(expected)"
        }
    }

    /// The whole table: every set of interfaces up × the cellular setting.
    static let table: [Case] = [
        Case(up: [wifi, cellular], allowsCellular: true, expected: .use(.wifi)),  // WiFi preferred
        Case(up: [cellular, wifi], allowsCellular: false, expected: .use(.wifi)),
        Case(up: [wifi], allowsCellular: true, expected: .use(.wifi)),
        Case(up: [wifi], allowsCellular: false, expected: .use(.wifi)),
        Case(up: [cellular], allowsCellular: true, expected: .use(.cellular)),
        Case(up: [cellular], allowsCellular: false, expected: .cellularNotAllowed),
        Case(up: [], allowsCellular: true, expected: .noNetwork),
        Case(up: [], allowsCellular: false, expected: .noNetwork),
    ]

    @Test("interface or suspension reason", arguments: table)
    func choice(_ c: Case) {
        let choice = InterfaceChoice(path: NetworkPath(interfaces: c.up), allowsCellular: c.allowsCellular)
        #expect(choice == c.expected)
    }

    @Test("a choice gives either an interface or a suspension reason, never both")
    func interfaceOrReason() {
        #expect(InterfaceChoice.use(.cellular).interface == .cellular)
        #expect(InterfaceChoice.use(.cellular).suspensionReason == nil)
        #expect(InterfaceChoice.noNetwork.interface == nil)
        #expect(InterfaceChoice.noNetwork.suspensionReason == .network)
        #expect(InterfaceChoice.cellularNotAllowed.interface == nil)
        #expect(InterfaceChoice.cellularNotAllowed.suspensionReason == .cellularNotAllowed)
    }

    @Test("an expensive or constrained WiFi is still WiFi")
    func flagsDoNotMatter() {
        let hotspot = PathInterface(kind: .wifi, isExpensive: true, isConstrained: true, endpoint: "127.0.0.2:8080")
        #expect(InterfaceChoice(path: NetworkPath(interfaces: [hotspot]), allowsCellular: false) == .use(.wifi))
    }
}
