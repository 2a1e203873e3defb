/// An answer of the control API that is not a success: its status and a message that
/// says what was wrong and what to do, sent as toxiproxy does (`{"error": …, "status": …}`).
public struct APIError: Error, Equatable, Sendable, CustomStringConvertible {
    public var status: Int
    public var message: String

    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status): \(message)" }

    /// 400: the request's body or a field of it is wrong.
    public static func badRequest(_ message: String) -> APIError { APIError(400, message) }
    /// 404: no such proxy, toxic or route.
    public static func notFound(_ message: String) -> APIError { APIError(404, message) }
    /// 409: a proxy or toxic of that name exists.
    public static func conflict(_ message: String) -> APIError { APIError(409, message) }
}
