import ResilienceHarness
import Testing

@Suite struct AppCommandLineParsingTests {
    @Test func blanksSeparateWordsAndRunsOfBlanksCountOnce() throws {
        let line = try AppCommandLine(parsing: "  python3   examples/agents/python/agent.py\t--verbose ")
        #expect(line.executable == "python3")
        #expect(line.arguments == ["examples/agents/python/agent.py", "--verbose"])
    }

    @Test func quotesKeepBlanksAndJoinAdjacentText() throws {
        let line = try AppCommandLine(parsing: #"node 'my agent.js' --name="two words"x a\ b"#)
        #expect(line.executable == "node")
        #expect(line.arguments == ["my agent.js", "--name=two wordsx", "a b"])
    }

    @Test func doubleQuotesUnescapeOnlyQuoteAndBackslash() throws {
        let line = try AppCommandLine(parsing: #"app "say \"hi\" \\ \n""#)
        #expect(line.arguments == [#"say "hi" \ \n"#])
    }

    @Test func anEmptyQuotedArgumentIsKept() throws {
        let line = try AppCommandLine(parsing: "app '' x")
        #expect(line.arguments == ["", "x"])
    }

    @Test(arguments: ["", "   ", "'unterminated", "app \"open", "app \\", "''"])
    func badTextIsATypedErrorThatSaysHowToWriteIt(text: String) {
        #expect(throws: AppCommandLineError.self) { try AppCommandLine(parsing: text) }
        do { _ = try AppCommandLine(parsing: text) } catch { #expect(error.description.contains("--agent '")) }
    }
}
