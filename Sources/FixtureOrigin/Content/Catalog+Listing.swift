extension Catalog {
    /// `bench origin`'s lines: each video's id and master playlist URL at `base`
    /// (`http://host:port`), flagged when it is protected or not offline-enabled.
    public func listing(base: String) -> [String] {
        videos.map { video in
            let flags = [video.protection == .none ? nil : "protected (\(video.protection.rawValue))",
                         video.offlineEnabled ? nil : "not offline-enabled"].compactMap { $0 }
            return "\(video.id.padding(toLength: 12, withPad: " ", startingAt: 0)) \(base)/videos/\(video.id)/master.m3u8"
                + (flags.isEmpty ? "" : "  [\(flags.joined(separator: ", "))]")
        }
    }
}
