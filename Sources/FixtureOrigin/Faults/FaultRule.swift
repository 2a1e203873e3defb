import BenchCore

/// One HTTP fault rule: when a request's path matches `path` (and its method matches
/// `method`, if set), perform `fault` with probability `probability`, at most `count`
/// times. Settings only: how often it has fired is kept by `FaultRuleSet`.
///
/// JSON (snake_case; only `path` and `fault` are required):
/// ```json
/// {"id": "flaky-480p", "path": "/videos/*/480p/seg*.ts", "method": "GET",
///  "fault": {"type": "status", "code": 503, "retry_after": "2s"},
///  "probability": 0.25, "count": 3}
/// ```
/// `id` defaults to the path pattern; `probability` (a number in 0…1 or a string like
/// `"5%"`) defaults to 1; `count` absent means unlimited.
public struct FaultRule: Sendable, Hashable, Codable {
    /// Names the rule in decisions, counters and the control API.
    public var id: String
    /// Which paths (without the query string) the rule applies to.
    public var path: PathPattern
    /// Only requests with this method (compared case-insensitively); nil for any.
    public var method: String?
    /// What to do when the rule fires.
    public var fault: HTTPFault
    /// Chance that a matching request triggers the fault, 0…1.
    public var probability: Double
    /// Most times the rule may fire; nil for no limit.
    public var count: Int?

    /// Creates a rule; `id` defaults to the pattern text.
    public init(
        id: String? = nil, path: String, method: String? = nil, fault: HTTPFault, probability: Double = 1,
        count: Int? = nil
    ) {
        self.id = id ?? path
        self.path = PathPattern(path)
        self.method = method
        self.fault = fault
        self.probability = probability
        self.count = count
    }

    /// Why the rule is unusable (bad probability, negative count, impossible fault), or nil.
    public var problem: String? {
        if !(0...1).contains(probability) { return "rule '\(id)': probability must be between 0 and 1" }
        if let count, count < 0 { return "rule '\(id)': count must not be negative" }
        return fault.problem.map { "rule '\(id)': \($0)" }
    }

    /// Whether the rule applies to a request (ignoring probability and count).
    public func applies(method requestMethod: String, path requestPath: String) -> Bool {
        if let method, method.uppercased() != requestMethod.uppercased() { return false }
        return path.matches(requestPath)
    }

    private enum CodingKeys: String, CodingKey {
        case id, path, method, fault, probability, count
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        path = try c.decode(PathPattern.self, forKey: .path)
        id = try c.decodeIfPresent(String.self, forKey: .id) ?? path.text
        method = try c.decodeIfPresent(String.self, forKey: .method)
        fault = try c.decode(HTTPFault.self, forKey: .fault)
        count = try c.decodeIfPresent(Int.self, forKey: .count)
        if try !c.contains(.probability) || c.decodeNil(forKey: .probability) {
            probability = 1
        } else if let number = try? c.decode(Double.self, forKey: .probability) {
            probability = number
        } else {
            let text = try c.decode(String.self, forKey: .probability)
            do {
                probability = try Units.parseProbability(text)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .probability, in: c, debugDescription: error.description)
            }
        }
        if let problem {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: problem))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(path, forKey: .path)
        try c.encodeIfPresent(method, forKey: .method)
        try c.encode(fault, forKey: .fault)
        try c.encode(probability, forKey: .probability)
        try c.encodeIfPresent(count, forKey: .count)
    }
}
