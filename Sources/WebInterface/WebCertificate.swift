import SystemSupport
import TLS

/// The HTTPS certificate of the web interface: given files, or one made once
/// for the host name and kept in the state directory (key 0600), so a
/// browser that accepted it once keeps accepting it across restarts.
/// Blocks (files, key generation): off the cooperative pool.
public enum WebCertificate {
    public static let certificateName = "web-certificate.pem"
    public static let keyName = "web-key.pem"
    /// Long-lived: it is pinned by hand in the browser, not renewed by anyone.
    static let validDays = 3650

    /// The credentials for `tls`, nil when off. `made` is told when a new certificate was written.
    public static func credentials(_ tls: WebSettings.TLS, hostName: String?, listenHost: String,
                            made: (String, PEMCredentials) -> Void = { _, _ in }) throws(WebError) -> PEMCredentials? {
        switch tls {
        case .off:
            return nil
        case let .files(certificate, key):
            return try load(certificate: certificate, key: key, fix: "check [web] certificate-file and key-file")
        case let .selfSigned(directory):
            let base = directory.hasSuffix("/") ? directory : directory + "/"
            let certificate = base + certificateName, key = base + keyName
            // The certificate is written last: with it present, both are.
            if FileSystem.exists(certificate) {
                return try load(certificate: certificate, key: key,
                                fix: "delete \(certificate) and \(key) to make a new certificate (browsers will ask again)")
            }
            let name = hostName.flatMap { $0.isEmpty ? nil : $0 } ?? WebServiceRecord.fallbackName
            var alternatives = ["DNS:\(name)", "DNS:\(name).local", "DNS:localhost", "IP:127.0.0.1", "IP:::1"]
            if listenHost != "0.0.0.0", listenHost != "::", !listenHost.contains("%"), !listenHost.hasPrefix("127."), listenHost != "::1" {
                alternatives.append("IP:\(listenHost)")
            }
            let pem: PEMCredentials
            do {
                pem = try SelfSignedCertificate.makePEM(commonName: name, alternativeNames: alternatives, validDays: validDays)
            } catch {
                throw WebError(.certificate, "cannot make the self-signed certificate: \(error)")
            }
            do {
                try FileSystem.createDirectory(directory, mode: 0o755)
                try FileSystem.writeAtomically(key, bytes: Array(pem.key.utf8), mode: 0o600)
                try FileSystem.writeAtomically(certificate, bytes: Array(pem.certificate.utf8), mode: 0o644)
            } catch {
                throw WebError(.certificate, "cannot keep the self-signed certificate in \(directory): \(error); "
                               + "set [web] state-directory to a writable directory")
            }
            made(certificate, pem)
            return pem
        }
    }

    private static func load(certificate: String, key: String, fix: String) throws(WebError) -> PEMCredentials {
        let certificateText: String, keyText: String
        do {
            certificateText = try FileSystem.readText(certificate, limit: 64 * 1024)
            keyText = try FileSystem.readText(key, limit: 64 * 1024)
        } catch {
            throw WebError(.certificate, "cannot read the HTTPS certificate or key: \(error); \(fix)")
        }
        do {
            return try SelfSignedCertificate.checkPEM(certificate: certificateText, key: keyText, origin: (certificate, key))
        } catch {
            throw WebError(.certificate, "\(error); \(fix)")
        }
    }
}
