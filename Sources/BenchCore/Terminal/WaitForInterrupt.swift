import Dispatch
import Foundation

/// Suspends until SIGINT/SIGTERM, or until `limit` has passed (nil: no limit). The
/// long-running `bench` commands (proxy, origin) call it; it ignores both signals from
/// then on, so the caller can stop cleanly and print its counters.
public func waitForInterrupt(orAfter limit: Duration?) async {
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    let sources = [SIGINT, SIGTERM].map { number in
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { continuation.yield() }
        source.resume()
        return source
    }
    let timer = limit.map { Timekeeper.shared.schedule(after: $0) { continuation.yield() } }
    for await _ in stream { break }
    timer?.cancel()
    for source in sources { source.cancel() }
}
