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

    /// The host names and addresses the origin's certificate names by default.
    public static let defaultNames = ["localhost", "127.0.0.1", "127.0.0.2", "127.0.0.3", "::1"]

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
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PrivateKey(serverKey).publicKey,
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: caName,
            subject: try DistinguishedName { CommonName("Deadzone fixture origin") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names.map(Self.generalName))
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey))
        return RunCertificateAuthority(
            caPEM: try ca.serializeAsPEM().pemString, serverCertificatePEM: try server.serializeAsPEM().pemString,
            serverKeyPEM: serverKey.pemRepresentation)
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
