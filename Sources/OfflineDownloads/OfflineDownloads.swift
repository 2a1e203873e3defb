/// OfflineDownloads: the HLS offline download engine whose behaviour Deadzone proves
/// (DESIGN.md §4). See `DownloadStateMachine` for the per-download transition table.
public enum OfflineDownloads {
    /// Version of the engine's on-disk index schema and package layout.
    public static let formatVersion = 1
}
