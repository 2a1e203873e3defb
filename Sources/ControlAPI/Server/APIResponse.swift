/// What the control API answers: a status and a body (JSON unless said otherwise).
public struct APIResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    public var contentType: String

    public init(status: Int, body: [UInt8], contentType: String = "application/json") {
        self.status = status
        self.body = body
        self.contentType = contentType
    }

    /// A JSON document with `status`.
    public static func json(_ value: JSONValue, status: Int = 200) -> APIResponse {
        APIResponse(status: status, body: value.bytes)
    }

    /// 204, no body.
    public static let noContent = APIResponse(status: 204, body: [])

    /// toxiproxy's error body: `{"error": message, "status": status}`.
    public static func error(_ error: APIError) -> APIResponse {
        .json(.object(["error": .string(error.message), "status": .number(Double(error.status))]), status: error.status)
    }
}
