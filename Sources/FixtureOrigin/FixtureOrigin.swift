/// The fixture HLS origin: a catalog of videos served over HTTP/1.1, a license
/// server that plays a FairPlay key server, HTTP fault rules and a request log
/// (DESIGN.md §3). This module holds the content, license and fault logic as
/// value types; the HTTP server drives them.
public enum FixtureOrigin {
    /// Version of the origin's wire formats (catalog JSON, license messages).
    public static let protocolVersion = 1
}
