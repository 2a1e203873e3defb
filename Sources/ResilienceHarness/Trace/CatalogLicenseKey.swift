import BenchCore

/// The license a protected video needs, as its catalog entry names it. The harness
/// reads it from the entry it hands the app (never from the app's code), records it
/// with the request (`HarnessEvent.licenseKeyOf`), and judges the license server's log
/// against it.
public struct CatalogLicenseKey: Sendable, Hashable {
    /// The license server's asset id: the host of the `skd://asset/key` URI.
    public var assetID: String
    /// The key id: the path of the `skd://` URI.
    public var keyID: String
    /// The license URL the entry names, as written (relative to the catalog, usually a path).
    public var licenseURL: String

    /// Creates a key.
    public init(assetID: String, keyID: String, licenseURL: String) {
        self.assetID = assetID
        self.keyID = keyID
        self.licenseURL = licenseURL
    }

    /// The key of `document`: its first key system with both a license URL and an
    /// `skd://asset/key` URI; nil for a clear video, an HTTP key, or an entry that names
    /// no such URI.
    public init?(_ document: VideoDocument) {
        let systems = document.sources.compactMap(\.keySystems).joined()
        for system in systems {
            guard let licenseURL = system.licenseURL, let uri = system.keyURI, uri.hasPrefix("skd://") else { continue }
            let parts = uri.dropFirst("skd://".count).split(separator: "/", omittingEmptySubsequences: true)
            guard parts.count == 2 else { continue }
            self.init(assetID: String(parts[0]), keyID: String(parts[1]), licenseURL: licenseURL)
            return
        }
        return nil
    }
}
