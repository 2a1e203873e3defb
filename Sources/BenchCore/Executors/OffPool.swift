import Dispatch

/// Work that blocks (a wait on a child process, a socket, ffmpeg, a semaphore) or computes
/// at length (hashing a package, judging a long trace), run on a thread outside Swift's
/// cooperative pool while the caller awaits it.
///
/// The pool has as many threads as the machine has cores: one blocked or busy thread
/// there delays every task of the process, and every timer still kept on the pool.
/// `OffPool.run` hands each item to a serial Dispatch queue of its own, and resumes the
/// caller on its own executor when it is done. A serial queue targets Dispatch's
/// overcommitting root queue: a new thread when the others are busy, so a blocked item
/// never holds another back. (A *concurrent* queue does not overcommit: on Linux its pool
/// starts at the core count and grows by about one thread a second while every thread is
/// blocked, which made a child's 300 ms time limit take 22 s in a loaded test run.)
/// `.ci/check-blocking` fails on a known blocking call in a pool context that is not
/// inside `OffPool.run { … }`.
public enum OffPool {

    /// Runs `work` on a thread outside the cooperative pool and returns what it returns.
    /// Cancelling the caller does not stop `work`.
    public static func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            DispatchQueue(label: "deadzone.off-pool", qos: .userInitiated).async {
                do throws(E) { continuation.resume(returning: .success(try work())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
