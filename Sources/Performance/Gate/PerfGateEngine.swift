import FixtureOrigin
import Foundation

/// The gate's second section: Deadzone's engine downloading over a shaped link, as
/// `bench perf engine` section 1 does it (`PerfEngineHarness`: `bench download` as a child,
/// through an in-process conditioner, from an in-process origin, every stored byte checked),
/// judged as goodput / link rate.
enum PerfGateEngine {
    static let video = "clear"
    static let bitrate = 3_000_000

    /// Downloads `clear` at 3000k over a `linkMbps` wifi downlink from a catalog of `sizeScale`
    /// and returns the section and the gated ratio; a download that did not complete
    /// byte-exact is the section's error and measures no ratio.
    static func run(linkMbps: Double, sizeScale: Double, floor: Double?, benchExecutable: String?,
                    progress: @escaping @Sendable (PerfProgress) -> Void) async -> (PerfSection, [PerfGateRatio: Double]) {
        let rate = linkMbps * 1e6
        var section = PerfSection(
            id: "engine",
            title: "Engine goodput on a shaped \(PerfFormat.number(linkMbps)) Mbit/s link",
            method: """
                bench download of `\(video)` at \(bitrate / 1000)k (catalog size scale \(PerfFormat.number(sizeScale))) as a \
                child process, through the in-process conditioner's wifi (\(PerfFormat.number(linkMbps)) Mbit/s downlink, \
                no delay, loss or faults), from the in-process origin, every stored file checked against it (as `bench \
                perf engine` section 1). Goodput = stored media bytes / time from launching the child to its exit; the \
                gated ratio is goodput / link rate.
                """
        )
        var measured: [PerfGateRatio: Double] = [:]
        do {
            let origin = try await PerfEngineHarness.startOrigin(sizeScale: sizeScale, largeVideoDuration: 300)
            let result: Result<PerfEngineRun, any Error>
            do {
                result = .success(try await PerfEngineHarness.run(
                    PerfEngineScenario(videos: [video], bitrate: bitrate), origin: origin, linkBitsPerSecond: rate, seed: 1,
                    storageParent: NSTemporaryDirectory(), keepStorage: false, benchExecutable: benchExecutable,
                    progress: progress))
            } catch { result = .failure(error) }
            try await origin.stop()
            let run = try result.get()
            section.figures = figures(run, floor: floor)
            section.notes = PerfEngineSections.notes(run)
            if let failure = run.failure { section.error = failure } else { measured[.engineGoodput] = run.goodput / rate }
        } catch {
            section.error = "\(error)"
        }
        return (section, measured)
    }

    /// The gated ratio (against `floor` when there is one; a run that is not complete misses
    /// it), then the figures it comes from.
    static func figures(_ run: PerfEngineRun, floor: Double?) -> [PerfFigure] {
        let share = run.goodput / run.linkBitsPerSecond
        return [
            PerfFigure("goodput / link (\(PerfGateRatio.engineGoodput.rawValue))", share, unit: "",
                       display: String(format: "%.3f (%.2f Mbit/s)", share, run.goodput / 1e6),
                       target: floor.map { PerfTarget.atLeast($0) }, precondition: run.isComplete),
            PerfFigure("download complete, byte-exact", run.isComplete ? 1 : 0, unit: "", display: run.isComplete ? "yes" : "NO"),
            PerfFigure("content bytes", Double(run.content.bytes), unit: "B", display: PerfEngineSections.megabytes(run.content.bytes)),
            PerfFigure("wall time, launch to exit", run.child.wallSeconds, unit: "s"),
        ]
    }
}
