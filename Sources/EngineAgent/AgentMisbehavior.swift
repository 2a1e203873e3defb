/// How Deadzone's engine, behind its adapter, deliberately misbehaves (`bench agent
/// --misbehave NAME`), to show that the harness catches it: each variant breaks one
/// property of DESIGN.md §5, and the harness must report exactly that one failed.
public enum AgentMisbehavior: String, Sendable, Hashable, Codable, CaseIterable {
    /// Hands cellular to the engine as if it were WiFi, so downloads not allowed
    /// cellular use it (breaks `cellular-policy`).
    case ignoreCellularPolicy = "ignore-cellular-policy"
    /// Reports a download that the engine suspends for the network as failed, and
    /// stops it, as an app that treats a lost network as an error does (breaks
    /// `auto-suspend-on-disconnect`).
    case failOnOutage = "fail-on-outage"
    /// After a crash, throws away every stored segment so the engine fetches the whole
    /// video again (breaks `crash-recovery`).
    case refetchAfterCrash = "refetch-after-crash"
    /// After a crash (or a kill for memory), throws away the `.part` file of every
    /// partial segment, so the engine fetches each from byte 0 instead of resuming it
    /// with Range (breaks `crash-recovery`).
    case restartPartialSegments = "restart-partial-segments"
    /// Answers `prepareForBackground` at once without finishing license exchanges
    /// (breaks `license-before-background`).
    case backgroundBeforeLicense = "background-before-license"
    /// For every download requested, also fetches the video's master playlist straight
    /// from the origin, around the interface it was given, as a prefetcher built on
    /// another HTTP stack that forgets the app's interface policy would (on a phone that
    /// request takes whatever route is up, cellular included). The download itself goes
    /// through the path as usual (breaks `cellular-policy`).
    case bypassConditioner = "bypass-conditioner"
    /// While the path it was last given has no interface, opens raw TCP connections to
    /// the last known endpoint of every interface every 20 ms until the path returns,
    /// as an app that probes reachability aggressively (or retries a refused port with
    /// no backoff) does (breaks `bounded-retries`).
    case hammerRefusedPort = "hammer-refused-port"
    /// Beside each media segment it stored, reports one it never fetched: the same
    /// segment of another variant (breaks `integrity`: the origin never sent it).
    case claimsUnstoredSegments = "claims-unstored-segments"
    /// Reports a download downloaded, and its package finished, as soon as all but one
    /// of its items are stored, while the last is still under way; the engine's own
    /// later report is not told, so the states stay a legal chain (breaks `integrity`:
    /// the package the harness reads then lacks a segment).
    case claimsDownloadedEarly = "claims-downloaded-early"
    /// Reports `licenseAcquired` for each protected download as soon as it is
    /// requested, before the engine holds any license, and answers
    /// `prepareForBackground` at once with nothing unfinished: the engine really gets its
    /// licenses later (refused in the background, fetched after the app returned to the
    /// foreground). Claims with no license behind them (breaks `license-before-background`).
    case fakeLicense = "fake-license"
    /// The engine's transfer does not wait for the license before fetching encrypted
    /// segments (`EngineConfiguration.transferSkipsLicenseGate`); the license exchange
    /// runs alongside. Against a slow license server the first segments start before
    /// the license arrives (breaks `license-before-background`).
    case segmentsBeforeLicense = "segments-before-license"
    /// Replays ExoPlayer #7453 (WiFi reconnection not detected: downloads that need an
    /// unmetered network stay queued). Once a path without WiFi has followed one with it,
    /// the app hands its engine every later path without WiFi: a download not allowed
    /// cellular waits for WiFi forever, while WiFi is up (breaks `liveness`).
    case wifiReturnUnnoticed = "wifi-return-unnoticed"
    /// Replays the review of mux-player-swift PR #80 (the same asset downloaded twice at
    /// once after a relaunch). After a crash (or a kill for memory), the app requests
    /// every download the engine found unfinished a second time, from its catalog entry,
    /// and hides the copy's events: both run at once, the copy fetching what the disk
    /// already held (breaks `crash-recovery`).
    case duplicateAfterRelaunch = "duplicate-after-relaunch"
    /// Replays the WWDC app's #163 (in-progress downloads marked complete after a
    /// relaunch). After a crash (or a kill for memory), each download the engine takes
    /// up again is reported downloaded, its package finished, as soon as it is
    /// `downloading`; the engine's own later report is not told (breaks `integrity`: the
    /// package the harness reads then lacks segments).
    case completeAfterRelaunch = "complete-after-relaunch"
    /// Retries with no backoff: the engine's retry delay is at most 1 ms
    /// (`EngineConfiguration.retry`), so each failure in an outage is retried at once
    /// (breaks `bounded-retries`).
    case noBackoff = "no-backoff"
    /// Says `downloading` while it knows there is no network, as an app whose retry loop
    /// shows each attempt as downloading does: right after it answers a path with no
    /// interface, and each time the engine suspends a download for the network after
    /// such a path, the app reports each download suspended for the network downloading
    /// again, then suspended (breaks `auto-suspend-on-disconnect`).
    case downloadingWhileOffline = "downloading-while-offline"
    /// Reports a download paused as soon as the user pauses it, but stops the engine's
    /// transfer of it only 3 s later, as an app that pauses its list at once and its
    /// download queue at its next checkpoint: segments go on being fetched and stored
    /// (breaks `pause-holds`).
    case pauseOnlyTheList = "pause-only-the-list"
    /// Replays androidx/media #1712 (downloads stuck in DOWNLOADING after switching
    /// between WiFi and cellular). When the engine finds that only cellular is left for a
    /// download that may not use it (`suspended(cellularNotAllowed)`), the app does not
    /// say so and stops the download for good, quietly: it shows the state it last
    /// reported and never goes on, WiFi back or not (breaks `auto-suspend-on-disconnect`).
    case stuckAfterHandoff = "stuck-after-handoff"
    /// Replays novoda download-manager #442 (an allowed-connection setting kept per
    /// batch): each request's cellular setting is applied to every unfinished download,
    /// so a download not allowed cellular is allowed it when a later one is (breaks
    /// `cellular-policy`).
    case cellularSettingPerBatch = "cellular-setting-per-batch"
    /// After a relaunch after a crash (or a kill for memory), resumes every download the
    /// engine restored paused, as an app that keeps the user's pause in memory only: the
    /// download goes on behind the user's back (breaks `pause-holds`).
    case unpauseAfterRelaunch = "unpause-after-relaunch"
    /// When it is given a path with an interface after one with none, resumes every
    /// paused download, as an app that restarts its whole queue on a reachability change
    /// (breaks `pause-holds`).
    case unpauseOnPathReturn = "unpause-on-path-return"
    /// When the user resumes a download while the app knows no interface is up, shows it
    /// downloading at once (its list reflects the tap), then suspended as the engine says
    /// (breaks `auto-suspend-on-disconnect`: a transfer the network denies).
    case downloadingOnOfflineResume = "downloading-on-offline-resume"
    /// Reports a download failed, and stops it, when the engine suspends it for the
    /// network while the path still offers an interface: its transfer broke (a body cut,
    /// a stall) with WiFi up, and the app treats any transfer error as fatal (breaks
    /// `justified-failure`: no permanent cause).
    case failOnBodyCut = "fail-on-body-cut"
    /// Gives up on a download at its first server error (5xx): the engine's bounded
    /// retries are set to one attempt (`EngineConfiguration.retry.maximumAttempts`), where
    /// the documented rule is five rounds in a row (breaks `justified-failure`).
    case failOnServerError = "fail-on-server-error"
    /// Never stores a stream's init sections (EXT-X-MAP): the engine's plan leaves them
    /// out (`EngineSabotage.dropsInitSections`), so the local playlists name none and
    /// an fMP4/CMAF package holds segments no player can decode (breaks `integrity`: the
    /// harness's read of the package finds the origin's init section absent). Only a
    /// stream with init sections shows it: a recorded one, not the fixture catalog.
    case dropsInitSections = "drops-init-sections"
    /// Resumes a partly stored byte-range segment (EXT-X-BYTERANGE of one file) from
    /// offset 0 of the file instead of from the segment's offset plus what it holds
    /// (`EngineSabotage.resumesByteRangesFromFileStart`): the bytes appended to its
    /// `.part` are another part of the file, and the segment is stored, at its right
    /// size, with wrong bytes (breaks `integrity`: a stored segment differs from the
    /// origin's range). Only a byte-range stream resumed mid-segment shows it (a crash
    /// or a cut while a segment past the file's first is under way): a recorded one.
    case byteRangeFromZero = "byte-range-from-zero"

    /// The property each misbehaviour must make fail.
    public var brokenProperty: String {
        switch self {
        case .ignoreCellularPolicy: "cellular-policy"
        case .failOnOutage: "auto-suspend-on-disconnect"
        case .refetchAfterCrash, .restartPartialSegments: "crash-recovery"
        case .backgroundBeforeLicense, .fakeLicense, .segmentsBeforeLicense: "license-before-background"
        case .bypassConditioner: "cellular-policy"
        case .hammerRefusedPort: "bounded-retries"
        case .claimsUnstoredSegments, .claimsDownloadedEarly, .completeAfterRelaunch: "integrity"
        case .dropsInitSections, .byteRangeFromZero: "integrity"
        case .wifiReturnUnnoticed: "liveness"
        case .duplicateAfterRelaunch: "crash-recovery"
        case .noBackoff: "bounded-retries"
        case .downloadingWhileOffline: "auto-suspend-on-disconnect"
        case .pauseOnlyTheList: "pause-holds"
        case .stuckAfterHandoff: "auto-suspend-on-disconnect"
        case .cellularSettingPerBatch: "cellular-policy"
        case .unpauseAfterRelaunch, .unpauseOnPathReturn: "pause-holds"
        case .downloadingOnOfflineResume: "auto-suspend-on-disconnect"
        case .failOnBodyCut, .failOnServerError: "justified-failure"
        }
    }
}
