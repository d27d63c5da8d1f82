import CastClient
import SystemSupport
import TLS

/// Connects the Cast client over TLS. Receivers present self-signed
/// certificates, so the certificate is not verified; its fingerprint is logged.
func makeTLSConnector() throws -> CastClient.Connector {
    let context = try TLSContext.client()
    let logger = Logger(label: "tls")
    return { host, port in
        let connection = try await TLSConnection.connect(host: host, port: port, context: context)
        logger.info("TLS connection to \(connection.peerDescription); receiver certificate SHA-256 \(connection.peerCertificateFingerprint ?? "unknown") (self-signed, not verified)")
        return connection
    }
}
