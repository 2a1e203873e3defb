import Foundation

/// A command's fields, read with types; a missing or mistyped field refuses the command.
// @unchecked: `values` is a `let` of what JSONSerialization made (strings, numbers, arrays,
// dictionaries), which nothing mutates after parsing.
struct Fields: @unchecked Sendable {
    private let values: [String: Any]

    init(_ values: [String: Any]) { self.values = values }

    func string(_ key: String) -> String? { values[key] as? String }
    func int(_ key: String) -> Int? { (values[key] as? NSNumber).flatMap { Self.isBool($0) ? nil : $0.intValue } }
    func bool(_ key: String) -> Bool? { (values[key] as? NSNumber).flatMap { Self.isBool($0) ? $0.boolValue : nil } }
    func double(_ key: String) -> Double? { (values[key] as? NSNumber).flatMap { Self.isBool($0) ? nil : $0.doubleValue } }

    func required<T>(_ value: T?, _ key: String) throws -> T {
        guard let value else { throw DeadzoneRefusal("the command lacks the field \(key)") }
        return value
    }

    func download() throws -> String { try required(string("download"), "download") }

    func interfaces() throws -> [NetworkInterface] {
        guard let list = values["interfaces"] as? [[String: Any]] else { throw DeadzoneRefusal("the command lacks the field interfaces") }
        return try list.map { entry in
            let fields = Fields(entry)
            let kind = try required(fields.string("kind").flatMap(NetworkInterface.Kind.init), "interfaces[].kind")
            let endpoint = try required(fields.string("endpoint"), "interfaces[].endpoint")
            guard let colon = endpoint.lastIndex(of: ":"), let port = Int(endpoint[endpoint.index(after: colon)...]) else {
                throw DeadzoneRefusal("the endpoint \(endpoint) is not host:port")
            }
            return NetworkInterface(
                kind: kind, host: String(endpoint[..<colon]), port: port, proxy: fields.string("proxy").flatMap(URL.init(string:)),
                isExpensive: fields.bool("isExpensive") ?? false, isConstrained: fields.bool("isConstrained") ?? false)
        }
    }

    func request() throws -> DownloadRequest {
        guard let video = values["video"] as? [String: Any] else { throw DeadzoneRefusal("the command lacks the field video") }
        let catalog = try required(string("catalogURL"), "catalogURL")
        guard let catalogURL = URL(string: catalog) else { throw DeadzoneRefusal("catalogURL \(catalog) is not a URL") }
        let json = try JSONSerialization.data(withJSONObject: video, options: [.sortedKeys])
        let entry: CatalogVideo
        do {
            entry = try JSONDecoder().decode(CatalogVideo.self, from: json)
        } catch {
            throw DeadzoneRefusal("the video entry is not a catalog entry: \(error)")
        }
        return DownloadRequest(
            video: entry, videoJSON: json, catalogURL: catalogURL, allowsCellular: bool("allowsCellular"),
            rentalSeconds: double("rentalSeconds"), audioLanguages: values["audioLanguages"] as? [String] ?? [],
            subtitleLanguages: values["subtitleLanguages"] as? [String] ?? [])
    }

    /// JSONSerialization reads `true` as an NSNumber: told apart from 1 by its type.
    private static func isBool(_ number: NSNumber) -> Bool {
        #if canImport(Darwin)
        return CFGetTypeID(number) == CFBooleanGetTypeID()
        #else
        return type(of: number) == type(of: NSNumber(value: true))
        #endif
    }
}
