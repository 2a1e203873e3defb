import Foundation

extension HTTPFault {
    /// The body served for `.malformedPlaylist`: `playlist` broken so that no strict
    /// parser accepts it, the same way every time.
    ///
    /// What a broken packager or a proxy that mangles text might produce: the
    /// `#EXTM3U` header is misspelt `#EXTM3U8` (RFC 8216 §4.3.1.1 makes the header
    /// mandatory, so that alone makes the playlist invalid), the text is cut after
    /// half of its lines, and a dangling `#EXTINF:` with no duration and no URI ends
    /// it. Pure; any thread.
    public static func corrupt(playlist: String) -> String {
        var lines = playlist.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let first = lines.first, first.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("#EXTM3U") {
            lines.removeFirst()
        }
        let kept = lines.prefix((lines.count + 1) / 2)
        return (["#EXTM3U8"] + kept + ["#EXTINF:"]).joined(separator: "\n") + "\n"
    }
}
