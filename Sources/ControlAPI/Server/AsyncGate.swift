/// Lets one async operation through at a time, in arrival order: the control API's
/// changes (each may await a proxy's start or stop) never interleave.
actor AsyncGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` once every operation that came before it has ended.
    func run<T: Sendable>(_ body: @Sendable () async -> T) async -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        let result = await body()
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        return result
    }
}
