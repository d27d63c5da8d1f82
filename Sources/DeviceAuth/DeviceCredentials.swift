import COpenSSL
import CastProtocol
import SystemSupport

/// The receiver side of device authentication (for the simulator): a device
/// key, its certificate and intermediates, and optionally a CRL bundle, which
/// answer a challenge by signing `nonce || DER(own TLS certificate)`.
public final class DeviceCredentials: @unchecked Sendable {
    /// Owned EVP_PKEY; only read after init (signing does not mutate it).
    private let key: OpaquePointer
    public let certificate: X509Certificate
    public let intermediates: [X509Certificate]
    /// A serialized CrlBundle to send along, if any.
    public let crl: [UInt8]?

    public init(keyPEM: String, certificatePEM: String, intermediatesPEM: String = "", crl: [UInt8]? = nil) throws(DeviceAuthFailure) {
        // Certificates first: once the key is held, nothing may throw before
        // every property is set (deinit, which frees it, would not run).
        guard let first = try X509Certificate.certificates(pem: certificatePEM).first else {
            throw DeviceAuthFailure("no PEM certificate")
        }
        certificate = first
        intermediates = try X509Certificate.certificates(pem: intermediatesPEM)
        self.crl = crl
        let bytes = Array(keyPEM.utf8)
        guard bytes.count < Int(Int32.max) else { throw DeviceAuthFailure("key file too large") }
        let loaded: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            // No passphrase: an encrypted key fails instead of prompting on a terminal.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let loaded else { throw DeviceAuthFailure("no PEM private key (\(OpenSSLErrors.drain()))") }
        key = loaded
        guard X509_check_private_key(first.pointer, loaded) == 1 else {
            _ = OpenSSLErrors.drain()
            throw DeviceAuthFailure("the private key does not belong to the certificate \(first.displayName)")
        }
    }

    deinit { EVP_PKEY_free(key) }

    /// Loads `directory/device.key`, `device.pem` and the optional
    /// `intermediates.pem` (nearest first).
    public static func load(directory: String) throws(DeviceAuthFailure) -> DeviceCredentials {
        func read(_ name: String, required: Bool) throws(DeviceAuthFailure) -> String? {
            let path = directory + "/" + name
            do {
                return try FileSystem.readText(path)
            } catch let error as SystemError where !required && error.isNotFound {
                return nil
            } catch {
                throw DeviceAuthFailure("cannot read \(path): \(error)")
            }
        }
        let key = try read("device.key", required: true) ?? ""
        let certificate = try read("device.pem", required: true) ?? ""
        let intermediates = try read("intermediates.pem", required: false) ?? ""
        do {
            return try DeviceCredentials(keyPEM: key, certificatePEM: certificate, intermediatesPEM: intermediates)
        } catch {
            throw DeviceAuthFailure("\(directory): \(error)")
        }
    }

    /// Signs `data` with the device key (also used to sign test CRLs).
    public func sign(_ data: [UInt8], hash: AuthHashAlgorithm) throws(DeviceAuthFailure) -> [UInt8] {
        guard let signature = RSASignature.sign(data, key: key, hash: hash) else {
            throw DeviceAuthFailure("signing with the device key failed (\(OpenSSLErrors.drain()))")
        }
        return signature
    }

    /// The answer to a challenge for nonce `nonce` on a connection whose
    /// (own) TLS certificate is `tlsCertificate`; `hashAlgorithm` is what the
    /// challenge asked for (SHA-1 when it asked for nothing).
    public func response(nonce: [UInt8], hashAlgorithm: AuthHashAlgorithm,
                         tlsCertificate: [UInt8]) throws(DeviceAuthFailure) -> AuthResponse {
        let hash: AuthHashAlgorithm = hashAlgorithm == .sha1 ? .sha1 : .sha256
        return AuthResponse(signature: try sign(nonce + tlsCertificate, hash: hash),
                            clientAuthCertificate: certificate.der,
                            intermediateCertificates: intermediates.map(\.der),
                            signatureAlgorithm: .rsassaPKCS1v15, senderNonce: nonce, hashAlgorithm: hash, crl: crl)
    }
}
