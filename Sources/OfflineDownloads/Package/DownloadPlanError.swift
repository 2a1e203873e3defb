import Foundation

/// Why a `DownloadPlan` could not be made, and what the caller should do.
///
/// Thrown (typed) by `DownloadPlan.sources(masterURL:selection:)` and
/// `DownloadPlan.init(masterURL:master:selection:mediaPlaylists:)`. Every case names
/// the stream (`video`, `audio_fr`, `subs_de`) it concerns, so the engine can report it
/// against the media selection. None of them is worth retrying with the same input.
public enum DownloadPlanError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No media playlist was given for a chosen stream: fetch `url` and pass it in
    /// `mediaPlaylists` under that exact URL.
    case missingMediaPlaylist(stream: String, url: URL)
    /// The stream's playlist has no EXT-X-ENDLIST (and is not PLAYLIST-TYPE=VOD): it is
    /// live, so it has no end to download. Offer streaming, or wait until it ends.
    case livePlaylist(stream: String, url: URL)
    /// The stream's playlist lists no segments: there is nothing to play offline.
    case emptyPlaylist(stream: String, url: URL)
    /// A playlist, segment or EXT-X-MAP URI does not resolve to an `http`/`https` URL,
    /// which is all the engine fetches.
    case unsupportedURL(stream: String, uri: String)
    /// A segment's EXT-X-BYTERANGE is empty (length 0).
    case invalidByteRange(stream: String, index: Int, range: String)
    /// An EXT-X-KEY the engine cannot take offline: neither an `skd://` key (answered
    /// by the license), nor an `http(s)` key in the `identity` format (stored as a key
    /// file), nor an inline `data:` key. `reason` says which rule it broke.
    case unsupportedKey(stream: String, uri: String, reason: String)
    /// Every EXT-X-KEY of segment `index` is of a key system the engine does not
    /// support (e.g. only Widevine and PlayReady): it needs an `skd://` key or an
    /// `identity` one. Ask the packager to list the FairPlay or AES-128 key too.
    case noSupportedKey(stream: String, index: Int, keyFormats: [String])
    /// An `skd://` key URI is not `skd://<asset-id>/<key-id>`, so no license can be
    /// asked for it.
    case malformedSKDKey(uri: String)
    /// The chosen streams use more than one `skd://` key; a download holds one license.
    case multipleLicenseKeys(uris: [String])

    /// One sentence that says what happened and what to do.
    public var description: String {
        switch self {
        case let .missingMediaPlaylist(stream, url):
            "no media playlist was given for the \(stream) stream; fetch \(url.absoluteString) and pass it keyed by that URL"
        case let .livePlaylist(stream, url):
            "the \(stream) playlist \(url.absoluteString) has no EXT-X-ENDLIST: it is live and cannot be downloaded for offline playback; stream it instead"
        case let .emptyPlaylist(stream, url):
            "the \(stream) playlist \(url.absoluteString) has no segments; there is nothing to download"
        case let .unsupportedURL(stream, uri):
            "the \(stream) stream names \(uri), which is not an http or https URL; only those can be downloaded"
        case let .invalidByteRange(stream, index, range):
            "segment \(index) of the \(stream) stream has the empty byte range \(range); fix the playlist"
        case let .unsupportedKey(stream, uri, reason):
            "the \(stream) stream is encrypted with the key \(uri), which cannot be used offline: \(reason)"
        case let .noSupportedKey(stream, index, formats):
            "segment \(index) of the \(stream) stream lists only keys of the formats \(formats.joined(separator: ", ")), none of which Deadzone supports; it needs an skd:// key (FairPlay-style, via the license) or an identity key (AES-128)"
        case .malformedSKDKey(let uri):
            "the key \(uri) is not of the form skd://<asset-id>/<key-id>, so no license can be requested for it"
        case .multipleLicenseKeys(let uris):
            "the chosen streams need \(uris.count) different skd:// keys (\(uris.joined(separator: ", "))); a download holds one license, so choose streams that share one key"
        }
    }
}
