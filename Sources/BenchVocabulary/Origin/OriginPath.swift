/// Origin paths: the part before any query, and the video a path belongs to. Pure;
/// used by the judges that read `OriginRequestRecord.path` (properties, comparison metrics).
public enum OriginPath {
    /// `path` without its query (`?…`) or fragment (`#…`); an absolute URL keeps only its path.
    public static func normalized(_ path: String) -> String {
        var text = Substring(path)
        if let scheme = text.range(of: "://") {
            let rest = text[scheme.upperBound...]
            text = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<cut] }
        return String(text)
    }

    /// The `{video}` of `/videos/{video}/…`, else nil.
    public static func video(of path: String) -> String? {
        let parts = normalized(path).split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count >= 3, parts[0] == "videos" else { return nil }
        return String(parts[1])
    }

    /// Whether `path` names a media segment (`.ts`, `.m4s`, `.aac`): what the engine
    /// stores as segments, and what is encrypted in a protected video.
    public static func isMediaSegment(_ path: String) -> Bool {
        let name = normalized(path).lowercased()
        return [".ts", ".m4s", ".aac"].contains { name.hasSuffix($0) }
    }
}
