import AppProtocol
import BenchCore

/// The chaos generator's downloads, and its rough model of when each runs: two at a time
/// in request order (as the engines do), each taking its video's share of
/// `target-seconds` (a little more, two sharing the link), every event that stops
/// transfers (an outage, a pause, a kill) pushing every unfinished one back. The model
/// only picks which download an event waits on, and when to request a fresh one so that
/// there are bytes in flight to cut: a wrong guess moves a moment, never breaks a scenario.
extension ChaosPlan {
    /// Requests the next video of the pool with random options; returns its name.
    @discardableResult
    mutating func request() -> String? {
        guard !pool.isEmpty else { return nil }
        let video = pool.removeFirst()
        let allows: Bool? = rng.chance(0.35) ? nil : rng.chance(0.5)
        let rental: Int? = protected.contains(video) && rng.chance(0.2) ? 600 : nil
        steps.append(.request(ScenarioRequest(video, rentalSeconds: rental, allowsCellular: allows)))
        let slot = slots[0] <= slots[1] ? 0 : 1
        let start = max(clock, slots[slot])
        let end = start + targetSeconds * (ChaosCatalog.relativeLength[video] ?? 1) * 1.4
        slots[slot] = end
        downloads.append(ChaosDownload(name: video, video: video, start: start, end: end))
        return video
    }

    mutating func setAllowsCellular(_ allowed: Bool) {
        steps.append(.setAllowsCellular(allowed))
        allowsCellular = allowed
    }

    /// After a kill: the user's cellular setting again. The protocol says an app keeps
    /// it across a relaunch (`cellular-policy` and `network-edges` test that); a chaos
    /// scenario gives it again so that what it tests does not hang on that promise.
    mutating func settingAgainAfterTheRelaunch() {
        steps.append(.setAllowsCellular(allowsCellular))
    }

    /// A download expected to be under way now (the one with the most left of those
    /// running), else a fresh one, else the latest one.
    mutating func target() -> String? {
        let running = live.filter { !$0.interrupted && $0.start <= clock && $0.end > clock + 1 }
        if let busiest = running.max(by: { $0.end < $1.end }) { return busiest.name }
        return request() ?? live.last { !$0.interrupted }?.name
    }

    /// A random moment of `name`'s download: when its progress reaches a random
    /// fraction (or it settled); bounded and optional, so a download that went faster
    /// or slower only moves the moment.
    mutating func moment(_ name: String) {
        let fraction = Double(rng.int(in: 1...6)) / 10
        steps.append(.wait(ScenarioWait(
            until: .any([.progress(name, .atLeast(fraction)), .state(name, Self.settledOrGone)]),
            label: "\(name) at \(Int(fraction * 100)) %", timeout: .seconds(8), optional: true)))
        if let download = downloads.first(where: { $0.name == name }) {
            clock = max(clock, min(download.end, download.start + (download.end - download.start) * fraction))
        }
    }

    /// Waits, bounded, until every download has settled or gone.
    mutating func settleEverything(timeout: Duration) {
        for download in downloads {
            steps.append(.wait(ScenarioWait(
                until: .state(download.name, Self.settledOrGone), label: "\(download.name) settled or gone", timeout: timeout)))
        }
        clock = max(clock, slots.max() ?? clock)
    }

    /// Time passes (`duration`) with transfers stopped: every unfinished download, and
    /// every busy slot, ends that much later.
    mutating func advance(by duration: Duration) {
        let seconds = Double(duration.nanoseconds) / 1e9
        for index in downloads.indices where downloads[index].end > clock {
            if downloads[index].start > clock { downloads[index].start += seconds }
            downloads[index].end += seconds
        }
        slots = slots.map { $0 > clock ? $0 + seconds : $0 }
        clock += seconds
    }

    /// A download of its own for an event that must cut bytes in flight (a kill): a
    /// fresh one while the pool lasts, else one expected under way.
    mutating func freshTarget() -> String? {
        request() ?? target()
    }
}
