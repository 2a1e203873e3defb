import Foundation

extension ScenarioSuite {
    /// What `bench scenarios` prints: each scenario (its name and file, summary, what it
    /// asserts and needs), then every property, which every scenario is judged on.
    public var listing: String {
        var lines: [String] = []
        for entry in entries {
            lines.append("\(entry.file.name) (\(entry.path))")
            lines.append("  " + entry.file.summary)
            lines.append("  asserts: " + entry.file.asserts.joined(separator: ", "))
            lines.append("  needs: " + entry.file.needs.map(\.rawValue).joined(separator: ", "))
        }
        lines.append("\nEvery scenario is also judged on every other property (not applicable when it does not arise):")
        for property in Properties.all {
            lines.append("  \(property.id.padding(toLength: 32, withPad: " ", startingAt: 0)) \(property.description)")
        }
        return lines.joined(separator: "\n")
    }
}
