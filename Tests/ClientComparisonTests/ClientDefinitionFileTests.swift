import Testing
@testable import ClientComparison

/// Client definition files (YAML): what they accept, and errors that name the line.
@Suite struct ClientDefinitionFileTests {
    @Test func readsEveryField() throws {
        let yaml = """
            clients:
              mydl:
                command: mydl --out {output} {url}
                output: video.mp4
                validate: media
                success-exit-codes: [0, 3]
                requires: [mydl, ffmpeg]
                install: pip install mydl
                summary: My downloader
              plain:
                command: curl -o {output} {url}
            """
        let clients = try ClientDefinition.load(yaml: yaml, file: "clients.yaml")
        #expect(clients.map(\.name) == ["mydl", "plain"])
        let mydl = clients[0]
        #expect(mydl.command == "mydl --out {output} {url}")
        #expect(mydl.output == "video.mp4")
        #expect(mydl.validation == .media)
        #expect(mydl.successExitCodes == [0, 3])
        #expect(mydl.requires == ["mydl", "ffmpeg"])
        #expect(mydl.install == "pip install mydl")
        #expect(mydl.summary == "My downloader")
        #expect(clients[1].output == "output.ts")
        #expect(clients[1].validation == .auto)
    }

    @Test(arguments: [
        ("clients:\n  a:\n    command: dl {url} {output}\n    outptu: x.ts\n", 4, "unknown key \"outptu\""),
        ("clients:\n  a:\n    output: x.ts\n", 3, "has no `command:`"),
        ("clients:\n  a:\n    command: dl {url} {output}\n    validate: sha\n", 4, "bytes, media, auto"),
        ("clients:\n  a:\n    command: dl {url} {output}\n    success-exit-codes: [zero]\n", 4, "exit statuses"),
        ("clients:\n  a:\n    command: dl {output}\n", 2, "{url}"),
        ("client:\n  a:\n    command: dl {url} {output}\n", 1, "unknown key \"client\""),
        ("clients: [a, b]\n", 1, "map each client"),
        ("clients:\n  a: {command: 'dl {url} {output}'\n", 3, "not valid YAML"),
    ])
    func badFilesNameTheLineAndTheProblem(yaml: String, line: Int, expected: String) {
        #expect {
            _ = try ClientDefinition.load(yaml: yaml, file: "clients.yaml")
        } throws: { error in
            guard case let .file(path, reportedLine, reason) = error as? ClientDefinitionError else { return false }
            return path == "clients.yaml" && reportedLine == line && reason.contains(expected)
        }
    }

    @Test func aMissingFileSaysSo() {
        #expect {
            _ = try ClientDefinition.load(contentsOf: "/nonexistent/clients.yaml")
        } throws: { error in
            "\(error)".contains("/nonexistent/clients.yaml") && "\(error)".contains("cannot read")
        }
    }
}
