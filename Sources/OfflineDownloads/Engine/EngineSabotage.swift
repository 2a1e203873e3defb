import HLSPlaylist

/// FOR THE HARNESS'S MISBEHAVING AGENT ONLY (`bench agent --misbehave NAME`), never for
/// an app: the ways the engine's transfer can be made to go wrong on purpose, so that the
/// harness can show it catches each. Every field is off by default, and an engine with
/// every field off is Deadzone's honest engine.
///
/// They act on recorded streams' shapes that the fixture catalog does not have (init
/// sections, byte ranges of one file); `RecordCommandTests` plays them on streams recorded
/// from nginx.
public struct EngineSabotage: Sendable, Hashable {
    /// `drops-init-sections`: the plan leaves out every init section (EXT-X-MAP), so none
    /// is fetched or stored, and the local playlists name none (their segments then
    /// cannot be decoded: a player needs the init section of an fMP4 stream).
    public var dropsInitSections = false
    /// `byte-range-from-zero`: a byte-range segment (EXT-X-BYTERANGE) resumed from its
    /// `.part` file is asked from the start of the whole file instead of from its own
    /// offset: with `stored` bytes held, `bytes=<stored>-<length-1>` instead of
    /// `bytes=<offset+stored>-<offset+length-1>`. The bytes appended are another part of
    /// the file, so the segment is stored with the wrong bytes (at its right size).
    public var resumesByteRangesFromFileStart = false

    /// Nothing sabotaged.
    public init(dropsInitSections: Bool = false, resumesByteRangesFromFileStart: Bool = false) {
        self.dropsInitSections = dropsInitSections
        self.resumesByteRangesFromFileStart = resumesByteRangesFromFileStart
    }

    /// The byte range to fetch for a segment with `range` (its EXT-X-BYTERANGE, nil for a
    /// whole resource) of which `stored` bytes are held: `range` itself, or under
    /// `resumesByteRangesFromFileStart` for a resume, the same length at offset 0.
    func range(_ range: ByteRange?, resumingAt stored: Int64) -> ByteRange? {
        guard resumesByteRangesFromFileStart, stored > 0, let range else { return range }
        return ByteRange(length: range.length, offset: 0)
    }
}

extension DownloadPlan {
    /// This plan without its init sections (`EngineSabotage.dropsInitSections`): no item
    /// of kind `initSection`, no segment naming one, the others renumbered in order.
    func withoutInitSections() -> DownloadPlan {
        var kept = items.filter { $0.kind != .initSection }
        for index in kept.indices {
            kept[index].ordinal = index
            kept[index].initSectionPath = nil
        }
        return DownloadPlan(
            masterURL: masterURL, master: master, selection: selection, streams: streams, items: kept, skdKey: skdKey)
    }
}

extension OfflinePlanner.Planned {
    /// This plan without its init sections (`DownloadPlan.withoutInitSections()`), with
    /// the index rows and the expected size of what is left.
    func withoutInitSections(token: String) -> Self {
        let dropped = plan.withoutInitSections()
        return Self(
            plan: dropped, segments: dropped.segmentRecords(token: token), selection: selection,
            bytesExpected: dropped.estimatedBytes(knownLengths: [:]))
    }
}
