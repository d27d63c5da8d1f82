import COpenSSL

/// A certificate and its private key as PEM text, for servers that take
/// them in memory (libmicrohttpd's GnuTLS), with the certificate's SHA-256.
public struct PEMCredentials: Sendable, Equatable {
    public let certificate: String
    public let key: String
    /// SHA-256 of the DER certificate, colon-separated upper-case hex.
    public let fingerprint: String
}

extension SelfSignedCertificate {
    /// A fresh P-256 key and a self-signed certificate for `commonName` with
    /// `alternativeNames` (`DNS:box.local`, `IP:127.0.0.1`), as PEM.
    public static func makePEM(commonName: String, alternativeNames: [String], validDays: Int) throws(TLSError) -> PEMCredentials {
        let made: SelfSignedCertificate
        do {
            made = try SelfSignedCertificate(commonName: commonName, validDays: validDays, alternativeNames: alternativeNames)
        } catch let error as TLSError {
            throw error
        } catch {
            throw TLSError(.setupFailed, "cannot build a self-signed certificate: \(error)")
        }
        guard let certificate = pem({ PEM_write_bio_X509($0, made.certificate) }),
              let key = pem({ PEM_write_bio_PrivateKey($0, made.key, nil, nil, 0, nil, nil) }) else {
            throw TLSError(.setupFailed, "cannot write the certificate as PEM: \(OpenSSLErrors.drain())")
        }
        return PEMCredentials(certificate: certificate, key: key, fingerprint: made.fingerprint)
    }

    /// Reads a PEM certificate and its key (unencrypted) and checks that they
    /// belong together; `origin` names the files in errors.
    public static func checkPEM(certificate: String, key: String, origin: (certificate: String, key: String)) throws(TLSError)
        -> PEMCredentials {
        guard let x509 = read(certificate, { PEM_read_bio_X509($0, nil, nil, nil) }) else {
            throw TLSError(.setupFailed, "\(origin.certificate) holds no PEM certificate (\(OpenSSLErrors.drain()))")
        }
        defer { X509_free(x509) }
        // No passphrase callback answers: an encrypted key fails instead of asking on a terminal.
        guard let privateKey = read(key, { PEM_read_bio_PrivateKey($0, nil, { _, _, _, _ in 0 }, nil) }) else {
            throw TLSError(.setupFailed, "\(origin.key) holds no unencrypted PEM private key (\(OpenSSLErrors.drain()))")
        }
        defer { EVP_PKEY_free(privateKey) }
        guard X509_check_private_key(x509, privateKey) == 1 else {
            _ = OpenSSLErrors.drain()
            throw TLSError(.setupFailed, "the key in \(origin.key) is not the key of the certificate in \(origin.certificate)")
        }
        return PEMCredentials(certificate: certificate, key: key, fingerprint: fingerprint(of: x509))
    }

    private static func pem(_ write: (OpaquePointer) -> Int32) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { return nil }
        let length = Int(BIO_ctrl_pending(bio))
        var bytes = [UInt8](repeating: 0, count: length)
        guard BIO_read(bio, &bytes, Int32(length)) == Int32(length) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func read(_ text: String, _ parse: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { raw -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return parse(bio)
        }
    }
}
