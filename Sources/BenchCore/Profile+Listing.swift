import Foundation

extension Profile {
    /// `bench profiles`: one line per profile file of `directory` (`*.yaml`, `*.yml`, by
    /// name): the file name, the duration and the one-line description, or `INVALID`
    /// and the reason; and how many were invalid. No line when there is no profile.
    /// - Throws: the error of reading the directory.
    public static func listing(directory: String) throws -> (lines: [String], invalid: Int) {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
        let width = files.map(\.count).max() ?? 0
        var invalid = 0
        let lines = files.map { file in
            let name = file.padding(toLength: width, withPad: " ", startingAt: 0)
            do throws(ProfileError) {
                let profile = try Profile.load(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(file).path)
                return "\(name)  \(Units.format(profile.duration).padding(toLength: 6, withPad: " ", startingAt: 0))  "
                    + profile.oneLineDescription()
            } catch {
                invalid += 1
                return "\(name)  INVALID  \(error.reason)"
            }
        }
        return (lines, invalid)
    }
}
