import Foundation
import ResilienceHarness

/// The scenario files shipped in `Scenarios/` at the repository root, found from this
/// source file (tests must not depend on the working directory).
enum ShippedScenarios {
    /// The repository's root.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let directory = URL(fileURLWithPath: root).appendingPathComponent("Scenarios").path

    static func suite() throws -> ScenarioSuite {
        try ScenarioSuite.load(directory: directory)
    }

    /// The shipped scenario named `name`.
    static func named(_ name: String) throws -> Scenario {
        guard let scenario = try suite().named(name) else { throw UnknownScenario(name: name, known: []) }
        return scenario
    }
}
