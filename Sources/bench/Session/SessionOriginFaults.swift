import ControlAPI
import FixtureOrigin
import Foundation
import ResilienceHarness

/// `bench session`'s origin fault rules, added and removed by the outside test while the
/// session records: `GET /session/origin/faults` (the rules with how many requests each hit),
/// `POST /session/origin/faults` (one rule in the form of a faults file's `rules[]`,
/// docs/origin.md; 201 with its id, 409 for an id taken) and
/// `DELETE /session/origin/faults/{id}` (204, 404 for no such rule). Each rule is noted in
/// the trace as a scenario's origin fault is, so the judge knows the failures it causes are
/// the origin's.
enum SessionOriginFaults {
    static func list(_ context: ScenarioContext) async -> APIResponse {
        let rules = await context.originRules
        var answered: [ControlAPI.JSONValue] = []
        for (rule, fired) in rules {
            guard let data = try? JSONEncoder().encode(rule),
                  case .object(var fields)? = try? ControlAPI.JSONValue.parse(Array(data)) else { continue }
            fields["fired"] = .number(Double(fired))
            answered.append(.object(fields))
        }
        return .json(.object(["rules": .array(answered)]))
    }

    static func add(_ body: [UInt8], to context: ScenarioContext) async -> APIResponse {
        guard case .object? = try? ControlAPI.JSONValue.parse(body) else {
            return .error(.badRequest("bad request body: expected one fault rule as a JSON object, such as "
                + "{\"id\": \"flaky\", \"path\": \"/videos/**/*.ts\", \"fault\": {\"type\": \"status\", \"code\": 503}} (docs/origin.md)"))
        }
        let rule: FaultRule
        do {
            // Read as the one rule of a faults file: the same checks and messages, its place dropped.
            guard let parsed = try FaultRuleSet.parse(json: Array("{\"rules\":[".utf8) + body + Array("]}".utf8)).rules.first else {
                return .error(.badRequest("no fault rule in the body"))
            }
            rule = parsed
        } catch {
            return .error(.badRequest(error.description.replacingOccurrences(of: "fault rules: at rules[0].", with: "bad fault rule: at ")
                .replacingOccurrences(of: "fault rules: ", with: "bad fault rule: ").replacingOccurrences(of: "at rules[0]: ", with: "").replacingOccurrences(of: "rules[0]", with: "the rule")))
        }
        do throws(FaultRuleSetError) {
            try await context.addOriginRule(rule)
        } catch {
            let taken = await context.originRules.contains { $0.rule.id == rule.id }
            return .error(taken ? APIError(409, "an origin fault rule named \(rule.id) exists: DELETE it first or give another id")
                : .badRequest(error.description))
        }
        return .json(.object(["id": .string(rule.id)]), status: 201)
    }

    static func remove(_ id: String, from context: ScenarioContext) async -> APIResponse {
        guard await context.closeOriginFault(id) else {
            return .error(.notFound("no origin fault rule \(id) (GET /session/origin/faults lists them)"))
        }
        return .noContent
    }
}
