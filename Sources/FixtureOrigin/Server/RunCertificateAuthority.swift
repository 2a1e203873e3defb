import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A certificate authority made for one run, and the origin's certificate it signs: what
/// an HTTPS origin serves with (`OriginConfiguration.tls`), and what an app, a simulator
/// or curl is told to trust (`caPEM`, written beside the report as `ca.pem`). P-256 keys
/// from the system's generator; valid from an hour before `now` for seven days. The
/// origin's certificate names `localhost` and the loopback addresses the origin and the
/// conditioner's interfaces listen on, so a TLS client that connects to an interface's
/// endpoint, or tunnels to the origin through it, checks the same certificate.
public struct RunCertificateAuthority: Sendable {
    /// The CA's certificate (PEM): the one thing a client must trust.
    public let caPEM: String
    /// The origin's certificate (PEM), signed by the CA.
    public let serverCertificatePEM: String
    /// The origin's private key (PEM). Never written anywhere by the bench.
    let serverKeyPEM: String
    /// The CA's private key: it signs the certificates the intercepting proxy mints for
    /// each host (`leafContext(for:)`). Written only by `save(reusable:)`, when the user
    /// asked for a CA kept across runs.
    private let caKey: P256.Signing.PrivateKey
    private let caName: DistinguishedName
    private let notBefore: Date
    private let notAfter: Date

    /// The host names and addresses the origin's certificate names by default.
    public static let defaultNames = ["localhost", "127.0.0.1", "127.0.0.2", "127.0.0.3", "::1"]

    /// Why a CA kept across runs could not be read.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// A new CA and an origin certificate for `names` (host names, or IPv4/IPv6 addresses).
    public static func make(names: [String] = defaultNames, now: Date = Date()) throws -> RunCertificateAuthority {
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Deadzone run CA") }
        let notBefore = now.addingTimeInterval(-3600)
        let notAfter = now.addingTimeInterval(7 * 86400)
        let ca = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PrivateKey(caKey).publicKey,
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: caName, subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey))
        return try RunCertificateAuthority(
            caPEM: ca.serializeAsPEM().pemString, caKey: caKey, caName: caName, notBefore: notBefore, notAfter: notAfter,
            names: names)
    }

    /// A CA kept across runs: `directory`'s `ca.pem` and `ca-key.pem` when both are there
    /// (made by an earlier `save(reusable:)`), else a new one saved there.
    public static func reusable(in directory: String, now: Date = Date()) throws -> RunCertificateAuthority {
        let certificateFile = directory + "/ca.pem", keyFile = directory + "/ca-key.pem"
        let manager = FileManager.default
        guard manager.fileExists(atPath: certificateFile) || manager.fileExists(atPath: keyFile) else {
            let made = try make(now: now)
            try made.save(reusable: directory)
            return made
        }
        do {
            let caPEM = try String(contentsOfFile: certificateFile, encoding: .utf8)
            let key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: keyFile, encoding: .utf8))
            let ca = try Certificate(pemEncoded: caPEM)
            guard ca.publicKey == Certificate.PrivateKey(key).publicKey else {
                throw LoadError(description: "\(keyFile) is not the key of \(certificateFile)")
            }
            return try RunCertificateAuthority(
                caPEM: caPEM, caKey: key, caName: ca.subject, notBefore: ca.notValidBefore, notAfter: ca.notValidAfter,
                names: defaultNames)
        } catch let error as LoadError {
            throw error
        } catch {
            throw LoadError(description: "cannot read the CA kept in \(directory) (ca.pem, ca-key.pem): \(error); "
                + "remove both files to make a new one")
        }
    }

    /// Writes the CA's certificate and its private key (mode 0600) into `directory`, for
    /// `reusable(in:)`. Anyone holding that key can impersonate any host to a device that
    /// trusts the CA: only for a CA the user asked to keep.
    public func save(reusable directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keyFile = directory + "/ca-key.pem"
        guard FileManager.default.createFile(atPath: keyFile, contents: Data(caKey.pemRepresentation.utf8),
                                             attributes: [.posixPermissions: 0o600])
        else { throw LoadError(description: "cannot write \(keyFile)") }
        try caPEM.write(toFile: directory + "/ca.pem", atomically: true, encoding: .utf8)
    }

    private init(
        caPEM: String, caKey: P256.Signing.PrivateKey, caName: DistinguishedName, notBefore: Date, notAfter: Date,
        names: [String]
    ) throws {
        self.caPEM = caPEM
        self.caKey = caKey
        self.caName = caName
        self.notBefore = notBefore
        self.notAfter = notAfter
        let (certificate, key) = try Self.leaf(
            names: names, subject: "Deadzone fixture origin", caKey: caKey, caName: caName,
            notBefore: notBefore, notAfter: notAfter)
        serverCertificatePEM = certificate
        serverKeyPEM = key
    }

    /// A certificate for `names`, signed by the CA, and its key (both PEM).
    private static func leaf(
        names: [String], subject: String, caKey: P256.Signing.PrivateKey, caName: DistinguishedName,
        notBefore: Date, notAfter: Date
    ) throws -> (certificate: String, key: String) {
        let key = P256.Signing.PrivateKey()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PrivateKey(key).publicKey,
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: caName,
            subject: try DistinguishedName { CommonName(subject) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names.map(Self.generalName))
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey))
        return (try certificate.serializeAsPEM().pemString, key.pemRepresentation)
    }

    /// The server side of TLS for `host` (a name or an address), with a certificate for
    /// it minted now and signed by the CA: what the intercepting proxy answers a CONNECT
    /// to `host` with.
    func leafContext(for host: String) throws -> NIOSSLContext {
        let (certificatePEM, keyPEM) = try Self.leaf(
            names: [host], subject: host, caKey: caKey, caName: caName, notBefore: notBefore, notAfter: notAfter)
        let certificate = try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
        return try NIOSSLContext(configuration: .makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(key)))
    }

    /// The server side of TLS with the origin's certificate and key.
    func serverContext() throws -> NIOSSLContext {
        let certificate = try NIOSSLCertificate(bytes: Array(serverCertificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(serverKeyPEM.utf8), format: .pem)
        return try NIOSSLContext(configuration: .makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(key)))
    }

    /// An address as an IP name, anything else as a DNS name.
    private static func generalName(_ name: String) -> GeneralName {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(withUnsafeBytes(of: &v4) { Array($0) })))
        }
        if inet_pton(AF_INET6, name, &v6) == 1 {
            return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(withUnsafeBytes(of: &v6) { Array($0) })))
        }
        return .dnsName(name)
    }
}
