import BenchCore

extension ScenarioInterpreter {
    /// `origin-fault`: adds the fault to the origin's rules; a window with a duration
    /// closes itself when it is up (a task, so the steps go on meanwhile), or when the
    /// steps end, whichever comes first.
    mutating func openFaultWindow(_ fault: ScenarioOriginFault, on s: ScenarioContext) async throws {
        let id = try await s.openOriginFault(fault)
        guard let duration = fault.duration else { return }
        faultWindows.append(Task(executorPreference: s.executor) {
            _ = try? await Timekeeper.shared.sleep(for: duration)  // cancelled: the steps ended first
            await s.closeOriginFault(id)
        })
    }

    /// Closes every window still open, before the script returns (so that the trace
    /// says so within the scenario).
    mutating func closeFaultWindows() async {
        for window in faultWindows {
            window.cancel()
            await window.value
        }
        faultWindows = []
    }
}
