/// A request path of the content side, parsed: what `ContentStore` can answer.
///
/// Layout (every `{id}`, `{stream}` and `{lang}` is one path component):
/// `/videos`, `/videos/{id}`, `/videos/{id}/master.m3u8`, `/videos/{id}/{stream}/index.m3u8`,
/// `/videos/{id}/{stream}/seg{N}.ts`, `/videos/{id}/subs/{lang}/index.m3u8`,
/// `/videos/{id}/subs/{lang}/seg{N}.vtt`, `/videos/{id}/key`, `/videos/{id}/poster.png`,
/// `/videos/{id}/thumb.png`, `/videos/{id}/manifest.json`.
///
/// Parsing is strict so that no path can name anything outside this layout: anything
/// after `?` or `#` is ignored; the path must start with `/`; it is refused (nil) if it
/// holds `%` (no name here needs percent-encoding, so `%2e%2e` never decodes to `..`),
/// a backslash, an empty component (`//`, a trailing `/`), a `.` or `..` component, or a
/// character other than ASCII letters, digits, `-`, `_` and `.`. `N` is decimal with no
/// leading zero, so each resource has exactly one path.
public enum ContentPath: Hashable, Sendable {
    /// `/videos`
    case videoList
    /// `/videos/{id}`
    case video(id: String)
    /// `/videos/{id}/master.m3u8`
    case masterPlaylist(videoID: String)
    /// `/videos/{id}/{stream}/index.m3u8`
    case mediaPlaylist(videoID: String, stream: String)
    /// `/videos/{id}/{stream}/seg{N}.ts`
    case segment(videoID: String, stream: String, index: Int)
    /// `/videos/{id}/subs/{lang}/index.m3u8`
    case subtitlePlaylist(videoID: String, language: String)
    /// `/videos/{id}/subs/{lang}/seg{N}.vtt`
    case subtitleSegment(videoID: String, language: String, index: Int)
    /// `/videos/{id}/key`
    case key(videoID: String)
    /// `/videos/{id}/poster.png`
    case poster(videoID: String)
    /// `/videos/{id}/thumb.png`
    case thumbnail(videoID: String)
    /// `/videos/{id}/manifest.json`: the video's `HashManifest`
    case hashManifest(videoID: String)

    /// Parses a request target; nil for anything outside the layout or refused as above.
    /// Says nothing about whether the video or stream exists.
    public init?(_ target: String) {
        let path = target.prefix { $0 != "?" && $0 != "#" }
        guard path.first == "/" else { return nil }
        let parts = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.allSatisfy(Self.isSafeComponent), parts.first == "videos" else { return nil }
        switch parts.count {
        case 1: self = .videoList
        case 2: self = .video(id: parts[1])
        case 3:
            let id = parts[1]
            switch parts[2] {
            case "master.m3u8": self = .masterPlaylist(videoID: id)
            case "key": self = .key(videoID: id)
            case "poster.png": self = .poster(videoID: id)
            case "thumb.png": self = .thumbnail(videoID: id)
            case "manifest.json": self = .hashManifest(videoID: id)
            default: return nil
            }
        case 4 where parts[3] == "index.m3u8" && parts[2] != "subs":
            self = .mediaPlaylist(videoID: parts[1], stream: parts[2])
        case 4 where parts[2] != "subs":
            guard let index = Self.segmentIndex(parts[3], suffix: ".ts") else { return nil }
            self = .segment(videoID: parts[1], stream: parts[2], index: index)
        case 5 where parts[2] == "subs" && parts[4] == "index.m3u8":
            self = .subtitlePlaylist(videoID: parts[1], language: parts[3])
        case 5 where parts[2] == "subs":
            guard let index = Self.segmentIndex(parts[4], suffix: ".vtt") else { return nil }
            self = .subtitleSegment(videoID: parts[1], language: parts[3], index: index)
        default: return nil
        }
    }

    /// The canonical path; `ContentPath(p.path) == p` for ids, streams and languages that
    /// are safe components.
    public var path: String {
        switch self {
        case .videoList: "/videos"
        case .video(let id): "/videos/\(id)"
        case .masterPlaylist(let id): "/videos/\(id)/master.m3u8"
        case .mediaPlaylist(let id, let stream): "/videos/\(id)/\(stream)/index.m3u8"
        case .segment(let id, let stream, let index): "/videos/\(id)/\(stream)/seg\(index).ts"
        case .subtitlePlaylist(let id, let language): "/videos/\(id)/subs/\(language)/index.m3u8"
        case .subtitleSegment(let id, let language, let index): "/videos/\(id)/subs/\(language)/seg\(index).vtt"
        case .key(let id): "/videos/\(id)/key"
        case .poster(let id): "/videos/\(id)/poster.png"
        case .thumbnail(let id): "/videos/\(id)/thumb.png"
        case .hashManifest(let id): "/videos/\(id)/manifest.json"
        }
    }

    static func isSafeComponent(_ component: String) -> Bool {
        guard !component.isEmpty, component != ".", component != ".." else { return false }
        return component.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                true
            default: false
            }
        }
    }

    /// N from `seg{N}{suffix}`, decimal without leading zeros.
    static func segmentIndex(_ name: String, suffix: String) -> Int? {
        guard name.hasPrefix("seg"), name.hasSuffix(suffix) else { return nil }
        let digits = name.dropFirst(3).dropLast(suffix.count)
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            digits == "0" || digits.first != "0"
        else { return nil }
        return Int(digits)
    }
}
