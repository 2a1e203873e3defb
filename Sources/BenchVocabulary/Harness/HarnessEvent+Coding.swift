import AppProtocol
import BenchCore

/// The JSON of a harness event: one flat object, its case named by `type` and its values
/// by their labels; the unlabelled values are named `interface` (`interfaceSet`),
/// `background` (`licenseServerBackground`), `allowsCellular` (`allowsCellularSet`),
/// `inspection` (`inspected`) and `text` (`note`), e.g.
/// `{"type":"interfaceSet","interface":"wifi","up":false,"mode":"reset"}` (docs/report-schema.md).
extension HarnessEvent: Codable {
    /// The `type` of each case: the case's name.
    public enum Name: String, Codable, CaseIterable, Sendable {
        case scenarioStarted, scenarioFinished, pathGiven, pathAcknowledged, interfaceSet, lifecycle, licenseServerBackground
        case preparingForBackground, preparedForBackground, downloadRequested, licenseKeyOf, userAction, allowsCellularSet, killed
        case diskAtKill, leftAfterRemoval, diskWhilePaused, launched, helloAnswered, inspected, packageRead, agentExited, note
        case clientLaunched, clientExited, originFaultBegan, originFaultEnded, storageSynced
    }

    private enum Key: String, CodingKey {
        case type, name, profile, seed, timedOut, interfaces, interface, up, mode, foreground, background
        case unfinished, video, download, allowsCellular, protected, error, assetID, keyID, licenseURL, action
        case pid, reason, stored, partial, unknown, packageFiles, after, app, capabilities, inspection, master
        case cause, found, status, text, client, attempt, index, label, path, fault, rule, read, seconds
    }

    /// The case's `type`.
    public var name: Name {
        switch self {
        case .scenarioStarted: .scenarioStarted
        case .scenarioFinished: .scenarioFinished
        case .pathGiven: .pathGiven
        case .pathAcknowledged: .pathAcknowledged
        case .interfaceSet: .interfaceSet
        case .lifecycle: .lifecycle
        case .licenseServerBackground: .licenseServerBackground
        case .preparingForBackground: .preparingForBackground
        case .preparedForBackground: .preparedForBackground
        case .downloadRequested: .downloadRequested
        case .licenseKeyOf: .licenseKeyOf
        case .userAction: .userAction
        case .allowsCellularSet: .allowsCellularSet
        case .killed: .killed
        case .diskAtKill: .diskAtKill
        case .leftAfterRemoval: .leftAfterRemoval
        case .diskWhilePaused: .diskWhilePaused
        case .launched: .launched
        case .helloAnswered: .helloAnswered
        case .inspected: .inspected
        case .packageRead: .packageRead
        case .agentExited: .agentExited
        case .note: .note
        case .clientLaunched: .clientLaunched
        case .clientExited: .clientExited
        case .originFaultBegan: .originFaultBegan
        case .originFaultEnded: .originFaultEnded
        case .storageSynced: .storageSynced
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(name, forKey: .type)
        switch self {
        case let .scenarioStarted(name, profile, seed):
            try c.encode(name, forKey: .name)
            try c.encode(profile, forKey: .profile)
            try c.encode(seed, forKey: .seed)
        case let .scenarioFinished(name, timedOut):
            try c.encode(name, forKey: .name)
            try c.encode(timedOut, forKey: .timedOut)
        case let .pathGiven(interfaces), let .pathAcknowledged(interfaces):
            try c.encode(interfaces, forKey: .interfaces)
        case let .interfaceSet(interface, up, mode):
            try c.encode(interface, forKey: .interface)
            try c.encode(up, forKey: .up)
            try c.encodeIfPresent(mode, forKey: .mode)
        case let .lifecycle(foreground):
            try c.encode(foreground, forKey: .foreground)
        case let .licenseServerBackground(background):
            try c.encode(background, forKey: .background)
        case .preparingForBackground:
            break
        case let .preparedForBackground(unfinished):
            try c.encode(unfinished, forKey: .unfinished)
        case let .downloadRequested(video, download, allowsCellular, protected, error):
            try c.encode(video, forKey: .video)
            try c.encodeIfPresent(download, forKey: .download)
            try c.encode(allowsCellular, forKey: .allowsCellular)
            try c.encode(protected, forKey: .protected)
            try c.encodeIfPresent(error, forKey: .error)
        case let .licenseKeyOf(download, assetID, keyID, licenseURL):
            try c.encode(download, forKey: .download)
            try c.encode(assetID, forKey: .assetID)
            try c.encode(keyID, forKey: .keyID)
            try c.encode(licenseURL, forKey: .licenseURL)
        case let .userAction(action, download, error):
            try c.encode(action, forKey: .action)
            try c.encode(download, forKey: .download)
            try c.encodeIfPresent(error, forKey: .error)
        case let .allowsCellularSet(allowed):
            try c.encode(allowed, forKey: .allowsCellular)
        case let .killed(pid, reason):
            try c.encode(pid, forKey: .pid)
            try c.encode(reason, forKey: .reason)
        case let .diskAtKill(pid, stored, partial, unknown):
            try c.encode(pid, forKey: .pid)
            try c.encode(stored, forKey: .stored)
            try c.encode(partial, forKey: .partial)
            try c.encode(unknown, forKey: .unknown)
        case let .leftAfterRemoval(download, stored, partial, packageFiles):
            try c.encode(download, forKey: .download)
            try c.encode(stored, forKey: .stored)
            try c.encode(partial, forKey: .partial)
            try c.encode(packageFiles, forKey: .packageFiles)
        case let .diskWhilePaused(download, stored, partial):
            try c.encode(download, forKey: .download)
            try c.encode(stored, forKey: .stored)
            try c.encode(partial, forKey: .partial)
        case let .launched(pid, after):
            try c.encode(pid, forKey: .pid)
            try c.encode(after, forKey: .after)
        case let .helloAnswered(app, capabilities):
            try c.encode(app, forKey: .app)
            try c.encode(capabilities, forKey: .capabilities)
        case let .inspected(inspection):
            try c.encode(inspection, forKey: .inspection)
        case let .packageRead(download, master, cause, found):
            try c.encode(download, forKey: .download)
            try c.encodeIfPresent(master, forKey: .master)
            try c.encode(cause, forKey: .cause)
            try c.encode(found, forKey: .found)
        case let .storageSynced(read, seconds, error):
            try c.encode(read, forKey: .read)
            try c.encode(seconds, forKey: .seconds)
            try c.encodeIfPresent(error, forKey: .error)
        case let .agentExited(pid, status):
            try c.encode(pid, forKey: .pid)
            try c.encode(status, forKey: .status)
        case let .note(text):
            try c.encode(text, forKey: .text)
        case let .clientLaunched(client, mode, pid, attempt):
            try c.encode(client, forKey: .client)
            try c.encode(mode, forKey: .mode)
            try c.encode(pid, forKey: .pid)
            try c.encode(attempt, forKey: .attempt)
        case let .clientExited(client, pid, status):
            try c.encode(client, forKey: .client)
            try c.encode(pid, forKey: .pid)
            try c.encode(status, forKey: .status)
        case let .originFaultBegan(index, label, path, fault, rule):
            try c.encode(index, forKey: .index)
            try c.encodeIfPresent(label, forKey: .label)
            try c.encode(path, forKey: .path)
            try c.encode(fault, forKey: .fault)
            try c.encode(rule, forKey: .rule)
        case let .originFaultEnded(index, label, rule):
            try c.encode(index, forKey: .index)
            try c.encodeIfPresent(label, forKey: .label)
            try c.encode(rule, forKey: .rule)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        func value<T: Decodable>(_ key: Key) throws -> T { try c.decode(T.self, forKey: key) }
        func optional<T: Decodable>(_ key: Key) throws -> T? { try c.decodeIfPresent(T.self, forKey: key) }
        switch try c.decode(Name.self, forKey: .type) {
        case .scenarioStarted:
            self = .scenarioStarted(name: try value(.name), profile: try value(.profile), seed: try value(.seed))
        case .scenarioFinished:
            self = .scenarioFinished(name: try value(.name), timedOut: try value(.timedOut))
        case .pathGiven:
            self = .pathGiven(interfaces: try value(.interfaces))
        case .pathAcknowledged:
            self = .pathAcknowledged(interfaces: try value(.interfaces))
        case .interfaceSet:
            self = .interfaceSet(try value(.interface), up: try value(.up), mode: try optional(.mode))
        case .lifecycle:
            self = .lifecycle(foreground: try value(.foreground))
        case .licenseServerBackground:
            self = .licenseServerBackground(try value(.background))
        case .preparingForBackground:
            self = .preparingForBackground
        case .preparedForBackground:
            self = .preparedForBackground(unfinished: try value(.unfinished))
        case .downloadRequested:
            self = .downloadRequested(
                video: try value(.video), download: try optional(.download), allowsCellular: try value(.allowsCellular),
                protected: try value(.protected), error: try optional(.error))
        case .licenseKeyOf:
            self = .licenseKeyOf(
                download: try value(.download), assetID: try value(.assetID), keyID: try value(.keyID),
                licenseURL: try value(.licenseURL))
        case .userAction:
            self = .userAction(action: try value(.action), download: try value(.download), error: try optional(.error))
        case .allowsCellularSet:
            self = .allowsCellularSet(try value(.allowsCellular))
        case .killed:
            self = .killed(pid: try value(.pid), reason: try value(.reason))
        case .diskAtKill:
            self = .diskAtKill(
                pid: try value(.pid), stored: try value(.stored), partial: try value(.partial), unknown: try value(.unknown))
        case .leftAfterRemoval:
            self = .leftAfterRemoval(
                download: try value(.download), stored: try value(.stored), partial: try value(.partial),
                packageFiles: try value(.packageFiles))
        case .diskWhilePaused:
            self = .diskWhilePaused(download: try value(.download), stored: try value(.stored), partial: try value(.partial))
        case .launched:
            self = .launched(pid: try value(.pid), after: try value(.after))
        case .helloAnswered:
            self = .helloAnswered(app: try value(.app), capabilities: try value(.capabilities))
        case .inspected:
            self = .inspected(try value(.inspection))
        case .packageRead:
            self = .packageRead(
                download: try value(.download), master: try optional(.master), cause: try value(.cause), found: try value(.found))
        case .storageSynced:
            self = .storageSynced(read: try value(.read), seconds: try value(.seconds), error: try optional(.error))
        case .agentExited:
            self = .agentExited(pid: try value(.pid), status: try value(.status))
        case .note:
            self = .note(try value(.text))
        case .clientLaunched:
            self = .clientLaunched(client: try value(.client), mode: try value(.mode), pid: try value(.pid), attempt: try value(.attempt))
        case .clientExited:
            self = .clientExited(client: try value(.client), pid: try value(.pid), status: try value(.status))
        case .originFaultBegan:
            self = .originFaultBegan(
                index: try value(.index), label: try optional(.label), path: try value(.path), fault: try value(.fault),
                rule: try value(.rule))
        case .originFaultEnded:
            self = .originFaultEnded(index: try value(.index), label: try optional(.label), rule: try value(.rule))
        }
    }
}
