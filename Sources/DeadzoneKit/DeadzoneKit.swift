import Foundation

/// Runs an app under the Deadzone bench: connects (`BenchConnection.fromEnvironment()`),
/// turns each command into a call on `app`, checks and writes the replies, and exits the
/// process when the bench says `shutdown` (status 0) or goes away (status 0), or when it
/// speaks another protocol version or refuses the connection (status 2). Call it on a
/// thread that may block (a command-line app's main thread; in an app with a UI, a
/// thread of its own).
public enum DeadzoneKit {
    /// The protocol version the kit speaks.
    public static let protocolVersion = 1

    public static func run(_ app: any DeadzoneApp, connection: BenchConnection? = nil) -> Never {
        let opened: (read: Int32, write: LineWriter)
        do {
            opened = try (connection ?? BenchConnection.fromEnvironment()).open()
        } catch {
            diagnose("\(error)")
            exit(2)
        }
        var reader = LineReader(descriptor: opened.read)
        let loop = CommandLoop(app: app, writer: opened.write)
        while let line = reader.next() {
            switch loop.handle(line) {
            case .goOn: continue
            case .exit(let status): exit(status)
            }
        }
        exit(0)
    }
}
