import BenchCore
import Foundation
import LinkConditioner
import Synchronization

/// Deadzone's own endpoints, beside toxiproxy's, over the run's conditioner (the one a
/// profile's interfaces run on): `GET /deadzone` (interfaces, path, timeline, events
/// kept), `POST /deadzone/interfaces/{wifi|cellular}` (up, or down in a mode, with the
/// path update published at once, late or withheld), `POST /deadzone/timeline` (pause,
/// resume, move) and `GET /deadzone/events` (the feed, streamed; `ControlRequestHandler`).
/// Any thread.
public final class DeadzoneService: Sendable {
    /// Every conditioner event of the run, for the stream; give it to the conditioner as a sink.
    public let feed: EventFeed
    private let conditioner = Mutex<LinkConditioner?>(nil)
    private let driver = Mutex<InterfaceDriver?>(nil)

    /// What takes an interface up or down for `POST /deadzone/interfaces/…`: by default the
    /// conditioner's `setState`; a session records the step in its trace too.
    public typealias InterfaceDriver = @Sendable (InterfaceKind, InterfaceState, PathUpdatePolicy?) -> Void

    public init(feed: EventFeed = EventFeed()) {
        self.feed = feed
    }

    /// The conditioner the endpoints drive, once it runs (its sinks must include `feed`),
    /// and what takes its interfaces up and down (nil: its `setState`).
    public func attach(_ conditioner: LinkConditioner, drive: InterfaceDriver? = nil) {
        driver.withLock { $0 = drive }
        self.conditioner.withLock { $0 = conditioner }
    }

    /// `GET /deadzone`.
    public func status() async -> APIResponse {
        guard let conditioner = attached else { return .error(Self.noInterfaces) }
        return .json(await Self.json(conditioner.snapshot(), feed: feed))
    }

    /// `POST /deadzone/interfaces/{name}`: sends the change to the conditioner now (on
    /// the caller's thread: a cut never waits for the cooperative pool), and returns how
    /// to answer: the interface as it is afterwards.
    public func change(interface name: String, _ body: [UInt8]) -> @Sendable () async -> APIResponse {
        guard let conditioner = attached else { return { .error(Self.noInterfaces) } }
        guard let kind = InterfaceKind(rawValue: name) else {
            return { .error(.notFound("no interface \(name): the interfaces are "
                + InterfaceKind.allCases.map(\.rawValue).joined(separator: " and "))) }
        }
        let change: InterfaceChange
        do { change = try InterfaceChange.parse(try JSONValue.parse(body)) } catch { return { .error(error) } }
        if let drive = driver.withLock({ $0 }) {
            drive(kind, change.state, change.pathUpdate)
        } else {
            conditioner.setState(kind, change.state, pathUpdate: change.pathUpdate)
        }
        let feed = feed
        return {
            // Commands are handled in order: the snapshot shows the change made.
            let snapshot = await conditioner.snapshot()
            var json = Self.json(snapshot, feed: feed).objectValue ?? [:]
            json["interface"] = Self.encoded(snapshot.interface(kind))
            return .json(.object(json))
        }
    }

    /// `POST /deadzone/timeline`: sends the control now, as `change` does, and returns how
    /// to answer: where the timeline is afterwards (409 when it plays none).
    public func timeline(_ body: [UInt8]) -> @Sendable () async -> APIResponse {
        guard let conditioner = attached else { return { .error(Self.noInterfaces) } }
        let control: TimelineControl
        do { control = try TimelineRequest.parse(try JSONValue.parse(body)) } catch { return { .error(error) } }
        conditioner.controlTimeline(control)  // nothing happens when there is no timeline
        return {
            guard let timeline = await conditioner.snapshot().timeline else {
                return .error(.conflict("this conditioner plays no timeline (bench proxy plays its profile's; "
                    + "a run whose scenario drives the network does not)"))
            }
            return .json(Self.encoded(timeline))
        }
    }

    private var attached: LinkConditioner? { conditioner.withLock { $0 } }

    /// Whether a conditioner is attached (the endpoints have interfaces to drive).
    public var isAttached: Bool { attached != nil }

    static let noInterfaces = APIError(409, "no profile's interfaces run here: start bench proxy with --profile FILE "
        + "(and --upstream HOST:PORT or --http-proxy) beside --api to drive them; toxiproxy's /proxies work without")

    private static func json(_ snapshot: ConditionerSnapshot, feed: EventFeed) -> JSONValue {
        var json = encoded(snapshot).objectValue ?? [:]
        json["events"] = .object([
            "stream": .string("/deadzone/events"),
            "next": .number(Double(feed.next)),
            "oldestKept": .number(Double(feed.oldestKept)),
        ])
        return .object(json)
    }

    /// A Codable value as JSON (null when it cannot be encoded).
    static func encoded(_ value: some Encodable) -> JSONValue {
        guard let data = try? JSONEncoder().encode(value),
              let json = try? JSONDecoder().decode(JSONValue.self, from: data) else { return .null }
        return json
    }
}
