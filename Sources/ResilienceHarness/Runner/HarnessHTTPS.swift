import FixtureOrigin
import Foundation

/// A run served over HTTPS (`bench --https`): one certificate authority made for the
/// whole run, whose certificate every scenario's origin and license server serve TLS
/// with, and the file its certificate was written to (`ca.pem` in the run's output
/// directory), which the app is told to trust (hello's `caFile`, `DEADZONE_CA_FILE`).
public struct HarnessHTTPS: Sendable {
    /// The run's CA and the origin certificate it signed.
    public let authority: RunCertificateAuthority
    /// The absolute path of the CA's certificate (PEM).
    public let caFile: String

    /// The name of the CA's certificate in the run's output directory.
    public static let caFileName = "ca.pem"

    /// Makes the run's CA and writes its certificate as `ca.pem` in `directory` (created
    /// when missing; a relative path is taken from the current directory).
    /// - Throws: `HarnessHTTPSError` when the CA cannot be made or its file written.
    public static func make(writingCAInto directory: String) throws(HarnessHTTPSError) -> HarnessHTTPS {
        let folder = URL(fileURLWithPath: directory).standardizedFileURL
        let file = folder.appendingPathComponent(caFileName)
        let authority: RunCertificateAuthority
        do { authority = try RunCertificateAuthority.make() } catch { throw .cannotMakeCA("\(error)") }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(authority.caPEM.utf8).write(to: file, options: .atomic)
        } catch {
            throw .cannotWrite(path: file.path, reason: "\(error.localizedDescription)")
        }
        return HarnessHTTPS(authority: authority, caFile: file.path)
    }
}

/// Why a run cannot be served over HTTPS.
public enum HarnessHTTPSError: Error, Sendable, CustomStringConvertible {
    /// The CA or the origin's certificate could not be made.
    case cannotMakeCA(String)
    /// The CA's certificate could not be written where the run's reports go.
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotMakeCA(let reason): "--https: cannot make the run's certificate authority: \(reason)"
        case let .cannotWrite(path, reason): "--https: cannot write the run's CA certificate to \(path): \(reason)"
        }
    }
}
