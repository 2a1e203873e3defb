import Dispatch

/// Work that blocks (a wait on a child process, a socket, ffmpeg, a semaphore) or computes
/// at length (hashing a package, judging a long trace), run on a thread outside Swift's
/// cooperative pool while the caller awaits it.
///
/// The pool has as many threads as the machine has cores: one blocked or busy thread
/// there delays every task of the process, and every timer still kept on the pool.
/// `OffPool.run` hands the work to a concurrent Dispatch queue (overcommitting: a new
/// thread when the others are busy, so a blocked item never holds another back) and
/// resumes the caller on its own executor when it is done. `.ci/check-blocking` fails on
/// a known blocking call in a pool context that is not inside `OffPool.run { … }`.
public enum OffPool {
    private static let queue = DispatchQueue(label: "deadzone.off-pool", qos: .userInitiated, attributes: .concurrent)

    /// Runs `work` on a thread outside the cooperative pool and returns what it returns.
    /// Cancelling the caller does not stop `work`.
    public static func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(E) { continuation.resume(returning: .success(try work())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
