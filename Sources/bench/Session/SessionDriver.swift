import ControlAPI
import Foundation
import ResilienceHarness
import Synchronization

/// One session's state, shared by its script (the scenario that records it), its API
/// routes and the command: the scenario's context once it plays, the end the test or
/// Ctrl-C asks for, and the judged result the end's answer waits for. Any thread.
final class SessionDriver: Sendable {
    enum Phase: String, Sendable { case starting, recording, judging, ended }

    private struct State {
        var phase = Phase.starting
        var context: ScenarioContext?
        var endRequested = false
        var endWaiter: CheckedContinuation<Void, Never>?
        var result: ControlAPI.JSONValue?
        var resultWaiters: [CheckedContinuation<ControlAPI.JSONValue, Never>] = []
        var downloads: [String: String] = [:]
        /// The steps a protocol app's session plays (nil while a batch plays: it holds them).
        var steps: SessionSteps?
        /// The batch playing, cancelled when the session ends; it puts the steps back as it ends.
        var batch: Task<SessionStepFailure?, Never>?
    }

    private let state = Mutex(State())
    /// Called once the session records (its context is there), with that context.
    let onRecording: @Sendable (ScenarioContext) -> Void

    /// Whether the session launched the app and speaks the protocol with it (`--agent`,
    /// `--launch`): the test plays steps (`POST /session/steps`) instead of announcing.
    let launchesApp: Bool

    init(launchesApp: Bool = false, recordedVideos: Set<String> = [],
         onRecording: @escaping @Sendable (ScenarioContext) -> Void) {
        self.launchesApp = launchesApp
        self.onRecording = onRecording
        if launchesApp { state.withLock { $0.steps = SessionSteps(recordedVideos: recordedVideos) } }
    }

    var phase: Phase { state.withLock { $0.phase } }
    var context: ScenarioContext? { state.withLock { $0.context } }
    var downloads: [String: String] { state.withLock { $0.downloads } }

    /// The session scenario's script: launches the app when the session speaks the
    /// protocol with it, then records until the end is asked for; then stops a batch of
    /// steps still playing and closes the origin-fault windows its steps opened.
    /// - Throws: the launch's error (the app did not start or answer hello): the session
    ///   ends with it.
    func play(_ context: ScenarioContext) async throws {
        if launchesApp {
            do { try await context.launch() } catch {
                requestEnd()
                throw error
            }
        }
        state.withLock { state in
            state.context = context
            state.phase = .recording
        }
        onRecording(context)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state in
                if state.endRequested { return true }
                state.endWaiter = continuation
                return false
            }
            if ended { continuation.resume() }
        }
        let batch = state.withLock { $0.batch }
        batch?.cancel()
        _ = await batch?.value
        if var steps = state.withLock({ $0.steps }) {
            await steps.end()
            state.withLock { $0.steps = steps }
        }
    }

    /// Why a batch of steps cannot play now.
    enum StepsRefusal: Error { case playing, ended }

    /// Plays one batch of steps (`text`, a list in the scenario format) on the session's
    /// context, one batch at a time: the answer once it has played, or where it stopped.
    /// - Throws: `StepsRefusal.playing` while another batch plays.
    func playSteps(_ text: String, on context: ScenarioContext) async throws(StepsRefusal) -> StepsOutcome {
        var steps = try state.withLock { state throws(StepsRefusal) -> SessionSteps in
            guard !state.endRequested else { throw .ended }
            guard let steps = state.steps else { throw .playing }
            state.steps = nil
            return steps
        }
        let parsed: [ScenarioStep]
        do { parsed = try steps.parse(text) } catch {
            state.withLock { $0.steps = steps }
            return .badSteps(error)
        }
        let task = Task(executorPreference: context.executor) { [steps] () -> SessionStepFailure? in
            var playing = steps
            var failure: SessionStepFailure?
            do throws(SessionStepFailure) { try await playing.play(parsed, on: context) } catch {
                await context.note("the test's steps stopped: \(error)")
                failure = error
            }
            // Ended meanwhile: the end may have come before this batch was registered, and
            // not waited for it; its fault windows close here (closing twice is harmless).
            if self.state.withLock({ $0.endRequested }) { await playing.end() }
            let played = playing
            self.state.withLock { state in
                state.steps = played
                state.batch = nil
            }
            return failure
        }
        state.withLock { state in
            guard state.steps == nil else { return }  // the batch has finished already
            state.batch = task
            if state.endRequested { task.cancel() }
        }
        let failure = await task.value
        let downloads = state.withLock { $0.steps?.downloads ?? [:] }
        return .played(count: failure?.index ?? parsed.count, of: parsed.count, failure: failure, downloads: downloads)
    }

    /// What a batch of steps came to.
    enum StepsOutcome {
        /// The batch did not parse: nothing played.
        case badSteps(ScenarioFileError)
        /// `count` of its `of` steps played; `failure` says why the next did not.
        case played(count: Int, of: Int, failure: SessionStepFailure?, downloads: [String: String])
    }

    /// Asks the session to end (`POST /session/end`, Ctrl-C, the time limit); false when it was asked already.
    @discardableResult
    func requestEnd() -> Bool {
        let (first, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard !state.endRequested else { return (false, nil) }
            state.endRequested = true
            if state.phase == .recording { state.phase = .judging }
            defer { state.endWaiter = nil }
            return (true, state.endWaiter)
        }
        waiter?.resume()
        return first
    }

    /// An announced download's token and video.
    func announced(_ token: String, video: String) {
        state.withLock { $0.downloads[token] = video }
    }

    /// The judged session, for every waiter of `result()`.
    func finished(_ result: ControlAPI.JSONValue) {
        let waiters = state.withLock { state in
            state.phase = .ended
            state.result = result
            defer { state.resultWaiters = [] }
            return state.resultWaiters
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    /// Waits for the judged session.
    func result() async -> ControlAPI.JSONValue {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> ControlAPI.JSONValue? in
                if let result = state.result { return result }
                state.resultWaiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
