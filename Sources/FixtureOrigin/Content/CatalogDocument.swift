import BenchCore

// The catalog documents (BenchCore, shared with the engine that reads them) built from
// the fixture catalog.

extension VideoDocument {
    /// The document of `video` in `catalog`.
    public init(_ video: Video, in catalog: Catalog) {
        let base = "/videos/\(video.id)"
        var keySystems: [KeySystemDocument]?
        switch video.protection {
        case .none: keySystems = nil
        case .httpKey: keySystems = [KeySystemDocument(name: "aes-128", keyURL: "\(base)/key")]
        case .skd, .multiDRM:
            keySystems = [
                KeySystemDocument(
                    name: "com.apple.fps.1_0", certificateURL: catalog.configuration.certificatePath,
                    licenseURL: catalog.configuration.licensePath, keyURI: catalog.keyURI(for: video.id))
            ]
        }
        self.init(
            id: video.id, name: video.name, duration: video.duration, poster: "\(base)/poster.png",
            thumbnail: "\(base)/thumb.png",
            textTracks: video.textTracks.map {
                TextTrackDocument(language: $0.language, label: $0.label, url: "\(base)/subs/\($0.language)/index.m3u8")
            },
            offlineEnabled: video.offlineEnabled,
            sources: [SourceDocument(url: "\(base)/master.m3u8", type: SourceDocument.hlsType, keySystems: keySystems)])
    }
}

extension VideoListDocument {
    /// The list of `catalog`.
    public init(_ catalog: Catalog) {
        self.init(videos: catalog.videos.map { VideoDocument($0, in: catalog) })
    }
}
