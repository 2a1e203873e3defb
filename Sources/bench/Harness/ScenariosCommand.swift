import ArgumentParser
import ResilienceHarness

/// `bench scenarios`: what each scenario does and which properties it asserts.
struct ScenariosCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenarios",
        abstract: "List the scenarios of the suite, what each does and what it asserts."
    )

    func run() {
        for scenario in ScenarioSuite.all {
            print(scenario.name)
            print("  " + scenario.summary)
            print("  asserts: " + scenario.asserts.joined(separator: ", "))
            print("  needs: " + scenario.needs.map(\.rawValue).joined(separator: ", "))
        }
        print("\nEvery scenario is also judged on every other property (not applicable when it does not arise):")
        for property in Properties.all {
            print("  \(property.id.padding(toLength: 32, withPad: " ", startingAt: 0)) \(property.description)")
        }
    }
}
