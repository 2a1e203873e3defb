import AppProtocol
import BenchCore

extension ScenarioContext {
    /// Whether the app last reported `state` for a download that is in flight:
    /// requested and not yet downloaded, failed or gone (no report yet counts as in flight).
    static func isInFlight(_ state: AppState?) -> Bool {
        guard let state else { return true }
        return ![.downloaded, .failed, .canceling, .notDownloaded].contains(state)
    }

    /// A user action on `token` (`name` in the scenario) taken only while the download
    /// is in flight, as a user who sees it in the list would: skipped with a note when it
    /// is not. When the app refuses it and the download settles within 2 s (it finished
    /// as the user tapped), the refusal is noted, not an error.
    public func userIfInFlight(_ action: UserAction, _ token: String, name: String) async throws {
        let state = collector.live.states[token]
        guard Self.isInFlight(state) else {
            collector.harness(.note("\(action.rawValue) \(name): skipped, the download is \(state.map { "\($0)" } ?? "unknown")"))
            return
        }
        do { try await user(action, token) } catch {
            let settled: Bool
            do {
                try await wait("\(name) to settle after the app refused to \(action.rawValue) it", timeout: .seconds(2)) {
                    !Self.isInFlight($0.states[token])
                }
                settled = true
            } catch { settled = false }
            guard settled else { throw error }
            collector.harness(.note("\(action.rawValue) \(name): refused as the download settled (\(error))"))
        }
    }
}
