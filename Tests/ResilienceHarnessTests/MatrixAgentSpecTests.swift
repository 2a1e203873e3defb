import ResilienceHarness
import Testing

@Suite struct MatrixAgentSpecTests {
    @Test func agentSpecsReadNamedCommandsAndBuiltins() throws {
        let named = try MatrixAgentSpec(parsing: "mine=python3 'my agent.py' --fast")
        #expect(named.name == "mine" && named.command == AppCommandLine(executable: "python3", arguments: ["my agent.py", "--fast"]))
        #expect(try MatrixAgentSpec(parsing: "misbehave:fail-on-outage") == MatrixAgentSpec(name: "misbehave:fail-on-outage", command: nil))
        #expect(try MatrixAgentSpec(parsing: "deadzone").command == nil)
        #expect(throws: MatrixAgentSpecError.self) { try MatrixAgentSpec(parsing: "python3 my_agent.py") }
        #expect(throws: MatrixAgentSpecError.self) { try MatrixAgentSpec(parsing: "mine='python3") }
        #expect(throws: MatrixAgentSpecError.self) { try MatrixAgentSpec(parsing: "=python3 a.py") }
    }
}
