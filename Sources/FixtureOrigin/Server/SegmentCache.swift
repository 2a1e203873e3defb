/// A bounded cache of generated resources (segments, playlists, JSON) by canonical
/// path, oldest first out.
///
/// A value; `OriginServices` keeps one behind a lock. Bounds both the number of entries
/// and their total bytes, so a long download of the large video cannot grow it without end.
struct SegmentCache {
    let maximumEntries: Int
    let maximumBytes: Int
    private var entries: [String: ContentResource] = [:]
    private var order: [String] = []
    private var bytes = 0

    init(maximumEntries: Int, maximumBytes: Int) {
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
    }

    /// Entries held.
    var count: Int { entries.count }

    subscript(path: String) -> ContentResource? {
        get { entries[path] }
        set {
            guard let newValue, entries[path] == nil, maximumEntries > 0, newValue.bytes.count <= maximumBytes else {
                return
            }
            while !order.isEmpty, entries.count >= maximumEntries || bytes + newValue.bytes.count > maximumBytes {
                let oldest = order.removeFirst()
                bytes -= entries.removeValue(forKey: oldest)?.bytes.count ?? 0
            }
            entries[path] = newValue
            order.append(path)
            bytes += newValue.bytes.count
        }
    }
}
