import Foundation

extension Profile {
    /// Reads and validates a profile file.
    ///
    /// Trace files the profile names (`rate: {trace: …}`) are resolved relative to
    /// the profile's folder and loaded with `RateTrace.load`. Call from any thread;
    /// it reads files synchronously.
    /// - Throws: `ProfileError` naming the file, line, key path and what is allowed.
    public static func load(contentsOf path: String) throws(ProfileError) -> Profile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let exists = FileManager.default.fileExists(atPath: path)
            throw ProfileError(
                kind: .unreadableFile, file: path,
                reason: exists ? "cannot read the file as UTF-8 text" : "no such file"
            )
        }
        return try parse(yaml: text, sourcePath: path)
    }

    /// Parses and validates profile YAML.
    ///
    /// - Parameters:
    ///   - yaml: the document (schema in Profiles/README.md).
    ///   - sourcePath: the file it came from, used in errors, in `Profile.sourcePath`
    ///     and as the base of relative trace paths; nil means `<yaml>` in errors and
    ///     trace paths relative to the working directory.
    /// - Throws: `ProfileError` naming the file, line, key path and what is allowed.
    public static func parse(yaml: String, sourcePath: String?) throws(ProfileError) -> Profile {
        let base = sourcePath.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
        let reader = ProfileReader(source: ProfileSource(file: sourcePath, baseDirectory: base))
        return try reader.read(yaml)
    }
}
