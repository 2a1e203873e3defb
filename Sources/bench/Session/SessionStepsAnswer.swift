import ControlAPI
import ResilienceHarness

/// `POST /session/steps`: a batch of scenario steps played to the app a session launched,
/// answered once it has played (200: how many played, the downloads by name), with 400
/// for steps that do not parse or name what was never requested, 422 for a step the app
/// or a trigger failed (the steps before it played; the session records on), and 409 while
/// another batch plays.
enum SessionStepsAnswer {
    static func play(_ text: String, on context: ScenarioContext, driver: SessionDriver) async -> APIResponse {
        let outcome: SessionDriver.StepsOutcome
        do { outcome = try await driver.playSteps(text, on: context) } catch {
            return .error(APIError(409, error == .playing
                ? "a batch of steps is playing: send the next once its POST /session/steps has answered"
                : "the session is ending: steps play while it records"))
        }
        switch outcome {
        case .badSteps(let error):
            return .error(.badRequest("bad steps: \(error) (a list of steps as a scenario file's steps, docs/scenario-format.md, "
                + "e.g. [{\"request\": \"clear\", \"as\": \"d1\"}, {\"down\": \"wifi\"}])"))
        case let .played(count, total, failure, downloads):
            var fields: [String: ControlAPI.JSONValue] = [
                "played": .number(Double(count)), "steps": .number(Double(total)),
                "downloads": .object(downloads.mapValues { .string($0) }),
            ]
            guard let failure else { return .json(.object(fields)) }
            let status = failure.isScript ? 400 : 422
            fields["error"] = .string(failure.description)
            fields["status"] = .number(Double(status))
            return .json(.object(fields), status: status)
        }
    }
}
