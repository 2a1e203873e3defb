import BenchResults

extension ClientDefinition {
    /// Checks the name, the output file name and the command's placeholders.
    /// - Throws: `ClientDefinitionError` saying what to change.
    public func validate() throws(ClientDefinitionError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        guard !name.isEmpty, name.allSatisfy(allowed.contains), name != ".", name != ".." else {
            throw .invalid(client: name, reason: "a client name uses letters, digits, '-', '_' and '.' only")
        }
        guard !output.isEmpty, !output.contains("/"), output != ".", output != "..", !output.contains("\0") else {
            throw .invalid(client: name, reason: "output must be a plain file name (it is written in the run's work directory), got \"\(output)\"")
        }
        guard !successExitCodes.isEmpty else {
            throw .invalid(client: name, reason: "success-exit-codes must name at least one status")
        }
        let used = try ClientCommandLine.placeholders(in: command, client: name)
        guard used.contains(.url) || used.contains(.catalogURL) else {
            throw .invalid(client: name, reason: "the command must use {url} (the master playlist) or {catalog_url} (the catalog entry): without one it cannot reach the origin through the conditioner")
        }
        guard used.contains(.output) || used.contains(.workdir) else {
            throw .invalid(client: name, reason: "the command must write {output} (or into {workdir}): otherwise there is nothing to validate")
        }
    }
}
