import Foundation

/// Which clients and fault modes a comparison runs, from the names `bench compare` was
/// given (`--clients`, `--client`, `--clients-file`, `--modes`). Pure apart from looking
/// the clients' tools up on PATH; every error says what to name instead.
public enum ClientSelection {
    /// The built-in clients, then those of the clients file and of `--client` (a name
    /// given again replaces the earlier definition).
    public static func known(
        fileClients: [ClientDefinition], extra: [String]
    ) throws(ClientDefinitionError) -> [ClientDefinition] {
        var all = BuiltInClients.all
        for client in try fileClients + extra.map(ClientDefinition.fromArgument) {
            all.removeAll { $0.name == client.name }
            all.append(client)
        }
        return all
    }

    /// The clients to run: the named ones (each must be known and installed), or every
    /// built-in plus the user's own.
    public static func clients(
        _ names: String?, known: [ClientDefinition], extra: [String], fileClients: [ClientDefinition]
    ) throws(ClientDefinitionError) -> [ClientDefinition] {
        guard let names else {
            let own = Set(fileClients.map(\.name) + extra.compactMap { $0.split(separator: "=").first.map(String.init) })
            return known.filter { BuiltInClients.named($0.name) != nil || own.contains($0.name) }
        }
        var chosen: [ClientDefinition] = []
        for name in names.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let client = known.first(where: { $0.name == name }) else {
                throw .invalid(client: name, reason: "unknown client; known: \(known.map(\.name).joined(separator: ", ")) (add your own with --client NAME='COMMAND')")
            }
            let missing = ToolLocator.missing(for: client)
            guard missing.isEmpty else {
                throw .invalid(client: name, reason: "needs \(missing.joined(separator: ", ")), which is not installed"
                    + (client.install.map { "; install with: \($0)" } ?? "") + "; or leave it out of --clients")
            }
            if !chosen.contains(where: { $0.name == name }) { chosen.append(client) }
        }
        guard !chosen.isEmpty else { throw .invalid(client: "", reason: "--clients names no client") }
        return chosen
    }

    /// The fault modes `names` lists (comma-separated, each once, in the order given), or all.
    public static func modes(_ names: String?) throws(ClientDefinitionError) -> [FaultMode] {
        guard let names else { return FaultMode.allCases }
        var chosen: [FaultMode] = []
        for name in names.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let mode = FaultMode(rawValue: name) else {
                throw .invalid(client: "--modes", reason: "unknown fault mode \"\(name)\"; known: \(FaultMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if !chosen.contains(mode) { chosen.append(mode) }
        }
        guard !chosen.isEmpty else { throw .invalid(client: "--modes", reason: "names no fault mode") }
        return chosen
    }

    /// What `bench compare --list` prints: each client, whether its tools are installed
    /// (and how to install them) and its command, then each fault mode.
    public static func listing(_ known: [ClientDefinition]) -> [String] {
        var lines = ["clients:"]
        for client in known {
            let missing = ToolLocator.missing(for: client)
            let status = missing.isEmpty ? "installed" : "MISSING \(missing.joined(separator: ", "))" + (client.install.map { " - install: \($0)" } ?? "")
            lines += ["  \(client.name.padding(toLength: 18, withPad: " ", startingAt: 0)) \(status)", "      \(client.command)"]
        }
        lines.append("fault modes:")
        for mode in FaultMode.allCases { lines.append("  \(mode.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0)) \(mode.summary)") }
        return lines
    }
}
