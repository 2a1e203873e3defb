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
    }

    private let state = Mutex(State())
    /// Called once the session records (its context is there), with that context.
    let onRecording: @Sendable (ScenarioContext) -> Void

    init(onRecording: @escaping @Sendable (ScenarioContext) -> Void) {
        self.onRecording = onRecording
    }

    var phase: Phase { state.withLock { $0.phase } }
    var context: ScenarioContext? { state.withLock { $0.context } }
    var downloads: [String: String] { state.withLock { $0.downloads } }

    /// The session scenario's script: records until the end is asked for.
    func play(_ context: ScenarioContext) async {
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
