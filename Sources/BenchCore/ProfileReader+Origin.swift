/// The `origin:` section of a profile: windows of the timeline during which the
/// fixture origin misbehaves (Profiles/README.md, "Origin faults").
extension ProfileReader {
    static let originKeys = ["at", "for", "label", "path", "fault"]
    static let faultNames = ["status", "stall", "truncate", "slow_first_byte", "malformed_playlist", "captive_portal"]
    static let faultExamples = "captive_portal, malformed_playlist, stall, {status: 503}, {status: {code: 503, retry_after: 2s}}, "
        + "{stall: {after: 16KiB, for: 30s}}, {truncate: 1KB} or {slow_first_byte: 2s}"

    /// Reads the list of origin fault windows; each must open within the profile's
    /// duration and close by its end, in order of `at`.
    func originFaults(_ list: YAMLValue, duration: Duration) throws(ProfileError) -> [OriginFaultWindow] {
        var windows: [OriginFaultWindow] = []
        let unknownKey = { (key: String) -> String in
            let near = YAMLValue.nearest(key, in: Self.originKeys).map { " Did you mean '\($0)'?" } ?? ""
            return "unknown key '\(key)' in an origin fault.\(near) An origin fault takes at, for, fault, and "
                + "optionally path and label"
        }
        let items = try list.sequence(expecting: "a list of origin faults, each like {at: 1m, for: 20s, fault: captive_portal}")
        for (index, item) in items.enumerated() {
            let fields = try item.mapping(
                allowed: Self.originKeys, expecting: "an origin fault like {at: 1m, for: 20s, fault: {status: 503}}",
                unknownKey: unknownKey)
            let atValue = try fields.required("at", expecting: "when the fault begins, " + Units.durationExamples)
            let at = try atValue.parse(Units.parseDuration, expecting: Units.durationExamples)
            if at >= duration {
                throw atValue.error(
                    .invalidTimeline,
                    "\(Units.format(at)) is not before the end of the profile (\(Units.format(duration))); "
                        + "lengthen duration or move the fault earlier")
            }
            if let previous = windows.last, at < previous.at {
                throw atValue.error(
                    .invalidTimeline,
                    "\(Units.format(at)) comes before origin[\(index - 1)] (\(Units.format(previous.at))); "
                        + "list origin faults in the order they begin")
            }
            let forValue = try fields.required("for", expecting: "how long the fault lasts, " + Units.durationExamples)
            let length = try forValue.parse(Units.parseDuration, expecting: Units.durationExamples)
            guard length > .zero else {
                throw forValue.error(.invalidValue, "an origin fault must last longer than 0s; expected \(Units.durationExamples)")
            }
            if at + length > duration {
                throw forValue.error(
                    .invalidTimeline,
                    "the fault would end at \(Units.format(at + length)), after the profile's end "
                        + "(\(Units.format(duration))); shorten for or lengthen duration")
            }
            let label = try fields["label"].map { v throws(ProfileError) in try v.scalar(expecting: "a short label") }
            var path = OriginFaultWindow.everyPath
            if let v = fields["path"] {
                path = try v.scalar(expecting: "a path pattern like /videos/*/*.m3u8 or /**")
                guard path.hasPrefix("/") else {
                    throw v.error(.invalidValue, "\"\(path)\" does not start with /; expected a path pattern like /videos/**/*.ts")
                }
            }
            let faultValue = try fields.required("fault", expecting: "what the origin does: " + Self.faultExamples)
            windows.append(OriginFaultWindow(
                at: at, duration: length, label: label, path: path, fault: try originFault(faultValue)))
        }
        return windows
    }

    /// A fault: a bare name, or a mapping of one name to its settings.
    private func originFault(_ value: YAMLValue) throws(ProfileError) -> OriginFault {
        if case .scalar = value.node {
            let name = try value.scalar(expecting: Self.faultExamples)
            switch name {
            case "captive_portal": return .captivePortal
            case "malformed_playlist": return .malformedPlaylist
            case "stall": return .stall(afterBytes: 0, duration: nil)
            case "status", "truncate", "slow_first_byte":
                throw value.error(.invalidValue, "'\(name)' needs a value, e.g. \(Self.faultExamples)")
            default:
                let near = YAMLValue.nearest(name, in: Self.faultNames).map { "did you mean '\($0)'? " } ?? ""
                throw value.error(.invalidValue, "unknown fault '\(name)'; \(near)expected \(Self.faultExamples)")
            }
        }
        let fields = try value.mapping(allowed: Self.faultNames, expecting: Self.faultExamples)
        guard fields.entries.count == 1, let (name, settings) = fields.entries.first else {
            throw value.error(.invalidValue, "give exactly one fault; expected \(Self.faultExamples)")
        }
        switch name {
        case "status": return try statusFault(settings)
        case "stall":
            if settings.isNull { return .stall(afterBytes: 0, duration: nil) }
            let options = try settings.mapping(allowed: ["after", "for"], expecting: "{after: 16KiB, for: 30s}")
            let after = try options["after"]?.parse(Units.parseSize, expecting: Units.sizeExamples) ?? 0
            let length = try options["for"]?.parse(Units.parseDuration, expecting: Units.durationExamples)
            return .stall(afterBytes: after, duration: length)
        case "truncate":
            return .truncate(afterBytes: try settings.parse(Units.parseSize, expecting: Units.sizeExamples))
        case "slow_first_byte":
            return .slowFirstByte(try settings.parse(Units.parseDuration, expecting: Units.durationExamples))
        case "malformed_playlist", "captive_portal":
            guard settings.isNull else {
                throw settings.error(.invalidValue, "\(name) takes no settings; write fault: \(name)")
            }
            return name == "captive_portal" ? .captivePortal : .malformedPlaylist
        default:
            throw settings.error(.invalidValue, "unknown fault '\(name)'; expected \(Self.faultExamples)")
        }
    }

    /// `503` or `{code: 503, retry_after: 2s}`: an error status, 400…599.
    private func statusFault(_ value: YAMLValue) throws(ProfileError) -> OriginFault {
        var codeValue = value
        var retryAfter: Duration?
        if case .mapping = value.node {
            let options = try value.mapping(allowed: ["code", "retry_after"], expecting: "{code: 503, retry_after: 2s}")
            codeValue = try options.required("code", expecting: "an HTTP error status from 400 to 599")
            retryAfter = try options["retry_after"]?.parse(Units.parseDuration, expecting: Units.durationExamples)
        }
        let text = try codeValue.scalar(expecting: "an HTTP error status from 400 to 599")
        guard let code = Int(text), (400...599).contains(code) else {
            throw codeValue.error(
                .invalidValue,
                "\"\(text)\" is not an HTTP error status; expected a code from 400 to 599 (for a 200 login page use captive_portal)")
        }
        return .status(code: code, retryAfter: retryAfter)
    }
}
