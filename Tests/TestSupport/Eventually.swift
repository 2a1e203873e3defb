import BenchCore
import Foundation
import Testing

// The waits of live tests (sockets, child processes, real timers). No test sleeps a fixed
// time and then asserts: it waits for the event or condition it needs, with a generous
// bound (at the start of a full `swift test` some 60 live tests share two CPUs), and a
// bound that passes is a failure that says what never came.
//
// `TestSupport` is a library of the test targets only (no product ships it);
// `.ci/check-test-sleeps` checks that no other test code sleeps outside the helpers it allows.

/// Re-checks `condition` every `interval` until it holds or `seconds` have passed; whether
/// it held. Records nothing: for helpers whose callers judge the outcome themselves
/// (a state reached, a log of a given length). Tests call `eventually`. Runs on the
/// caller's actor, as `condition` does.
@discardableResult
public func pollUntil(
    within seconds: Double = 60, every interval: Duration = .milliseconds(10),
    isolation: isolated (any Actor)? = #isolation, until condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        // A cancelled test (its time limit passed) stops waiting at once. The wake-up is a
        // `Timekeeper` timer: it never waits for a free thread of the cooperative pool.
        do { try await Timekeeper.shared.sleep(for: interval) } catch { break }
    }
    return try await condition()
}

/// Waits until `condition` holds, re-checking it every `interval` for up to `seconds`.
/// When the bound passes it records an issue, "<what> did not happen within N s", and
/// returns false: a test that cannot go on without it returns (`guard await eventually`)
/// or uses `try #require(await eventually(...))`. `what` is read only on failure, so it
/// can describe the state seen then. Runs on the caller's actor, as `condition` does.
@discardableResult
public func eventually(
    _ what: @autoclosure () -> String, within seconds: Double = 60, every interval: Duration = .milliseconds(10),
    sourceLocation: SourceLocation = #_sourceLocation, isolation: isolated (any Actor)? = #isolation,
    until condition: () async throws -> Bool
) async rethrows -> Bool {
    if try await pollUntil(within: seconds, every: interval, isolation: isolation, until: condition) { return true }
    Issue.record("\(what()) did not happen within \(String(format: "%g", seconds)) s", sourceLocation: sourceLocation)
    return false
}

/// Lets `duration` of real time pass with nothing to wait for. Only where a fixed window
/// is itself the property under test ("nothing is asked for while paused", "a client
/// silent this long is still served") or the stimulus (pieces sent apart); the call says
/// why in a comment. Never to let things settle: wait for what they settle into.
public func watchWindow(_ duration: Duration) async throws {
    try await Timekeeper.shared.sleep(for: duration)
}
