import BenchCore
import Foundation

/// `license.json` in a package directory: the signed license as the license server
/// issued it (its HMAC signature still verifiable with the shared secret, see
/// `LicenseClient.isAuthentic`) and when it stops working, so that the package
/// carries its license and plays with no index and no network.
///
/// Written by the engine whenever the license is stored (acquired, renewed) and when
/// the first playback starts a play duration; removed with the package. JSON with
/// ISO 8601 dates.
public struct PackagedLicense: Sendable, Hashable, Codable {
    /// The file's name in the package directory.
    public static let fileName = "license.json"

    /// The signed license.
    public var license: License
    /// When it stops working: `distantFuture` for a purchase; for a rental the earlier of
    /// its expiry and, once played, the first playback plus the play duration.
    public var expiration: Date
    /// When the video was first played with it, if it was.
    public var firstPlayedAt: Date?

    /// Creates the file's contents.
    public init(license: License, expiration: Date, firstPlayedAt: Date?) {
        self.license = license
        self.expiration = expiration
        self.firstPlayedAt = firstPlayedAt
    }

    /// Reads `license.json` from the package `directory`; nil when there is none.
    public static func read(from directory: String) throws -> PackagedLicense? {
        guard let data = FileManager.default.contents(atPath: directory + "/" + fileName) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(PackagedLicense.self, from: data)
    }

    /// Writes `license.json` into the package `directory` (atomically: a reader sees the
    /// old file or the new one).
    public func write(to directory: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try encoder.encode(self).write(to: URL(fileURLWithPath: directory + "/" + Self.fileName), options: .atomic)
    }
}
