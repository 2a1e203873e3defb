import Testing
@testable import ClientComparison

/// Client commands, their placeholders and their validation.
@Suite struct ClientDefinitionTests {
    @Test func placeholdersAreFoundAndFilledInAsSingleShellWords() throws {
        let command = "dl --out {output} {{literal}} {url}"
        #expect(try ClientCommandLine.placeholders(in: command, client: "dl") == [.output, .url])
        let rendered = try ClientCommandLine.render(command, client: "dl", values: [
            .output: "/tmp/a dir/it's.ts", .url: "http://127.0.0.2:80/videos/compare/master.m3u8",
        ])
        #expect(rendered == #"dl --out '/tmp/a dir/it'\''s.ts' {literal} 'http://127.0.0.2:80/videos/compare/master.m3u8'"#)
    }

    @Test(arguments: [
        ("dl {nope} {url} {output}", "unknown placeholder {nope}"),
        ("dl {url {output}", "unknown placeholder {url {output}"),
        ("dl {url} {output", "never closed"),
        ("dl } {url} {output}", "has no '{'"),
    ])
    func badPlaceholdersAreRefusedSayingWhy(command: String, expected: String) {
        #expect {
            try ClientDefinition(name: "dl", command: command).validate()
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test func aPlaceholderWithoutAValueIsAnError() {
        #expect(throws: ClientDefinitionError.self) {
            try ClientCommandLine.render("dl {bench} {url}", client: "dl", values: [.url: "u"])
        }
    }

    @Test(arguments: [
        (ClientDefinition(name: "bad name", command: "dl {url} {output}"), "letters, digits"),
        (ClientDefinition(name: "dl", command: "dl {url} {output}", output: "../escape.ts"), "plain file name"),
        (ClientDefinition(name: "dl", command: "dl {output}"), "{url}"),
        (ClientDefinition(name: "dl", command: "dl {url}"), "{output}"),
        (ClientDefinition(name: "dl", command: "dl {url} {output}", successExitCodes: []), "success-exit-codes"),
    ])
    func invalidDefinitionsSayWhatToChange(definition: ClientDefinition, expected: String) {
        #expect {
            try definition.validate()
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test func everyBuiltInClientIsValidAndNamedOnce() throws {
        for client in BuiltInClients.all { try client.validate() }
        #expect(Set(BuiltInClients.all.map(\.name)).count == BuiltInClients.all.count)
        #expect(BuiltInClients.named("deadzone")?.requires == [])
        #expect(BuiltInClients.named("ffmpeg")?.validation == .media)
    }

    @Test func aCommandLineClientIsNameEqualsCommand() throws {
        let client = try ClientDefinition.fromArgument("mydl=mydl -o {output} {url}")
        #expect(client.name == "mydl")
        #expect(client.command == "mydl -o {output} {url}")
        #expect(client.output == "mydl.ts")
        #expect(client.validation == .auto)
        #expect(throws: ClientDefinitionError.self) { try ClientDefinition.fromArgument("=dl {url} {output}") }
        #expect(throws: ClientDefinitionError.self) { try ClientDefinition.fromArgument("no-equals-sign") }
    }

    @Test func toolsAreFoundOnThePathAndMissingOnesNamed() {
        #expect(ToolLocator.find("sh", path: "/nonexistent:/bin:/usr/bin") != nil)
        #expect(ToolLocator.find("deadzone-no-such-tool", path: "/bin:/usr/bin") == nil)
        let client = ClientDefinition(name: "x", command: "x {url} {output}", requires: ["sh", "deadzone-no-such-tool"])
        #expect(ToolLocator.missing(for: client) == ["deadzone-no-such-tool"])
    }
}
