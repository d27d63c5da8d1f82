import COpenSSL

/// A P-256 key and a self-signed X.509 certificate made in-process, like the
/// short-lived certificates Cast receivers present.
public final class SelfSignedCertificate {
    let key: OpaquePointer
    let certificate: OpaquePointer
    let fingerprint: String

    /// `alternativeNames`: the subjectAltName entries (`DNS:name`, `IP:address`), which browsers and curl match, not the CN.
    init(commonName: String, validDays: Int, alternativeNames: [String] = []) throws {
        guard let key = cg_generate_p256_key() else {
            throw TLSError(.setupFailed, "cannot generate a P-256 key: \(OpenSSLErrors.drain())")
        }
        guard let certificate = X509_new() else {
            EVP_PKEY_free(key)
            throw TLSError(.setupFailed, "cannot allocate a certificate: \(OpenSSLErrors.drain())")
        }
        var serial: UInt32 = 0
        _ = withUnsafeMutableBytes(of: &serial) { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), 4) }
        let subject = X509_get_subject_name(certificate)
        let ok = X509_set_version(certificate, 2) == 1
            && ASN1_INTEGER_set(X509_get_serialNumber(certificate), Int(serial & 0x7FFF_FFFF)) == 1
            && X509_gmtime_adj(X509_getm_notBefore(certificate), -60) != nil
            && X509_gmtime_adj(X509_getm_notAfter(certificate), validDays * 86400) != nil
            && X509_set_pubkey(certificate, key) == 1
            && X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1
            && X509_set_issuer_name(certificate, subject) == 1
            && SelfSignedCertificate.addAlternativeNames(alternativeNames, to: certificate)
            && X509_sign(certificate, key, EVP_sha256()) > 0
        guard ok else {
            X509_free(certificate)
            EVP_PKEY_free(key)
            throw TLSError(.setupFailed, "cannot build a self-signed certificate: \(OpenSSLErrors.drain())")
        }
        self.key = key
        self.certificate = certificate
        self.fingerprint = SelfSignedCertificate.fingerprint(of: certificate)
    }

    private static func addAlternativeNames(_ names: [String], to certificate: OpaquePointer) -> Bool {
        guard !names.isEmpty else { return true }
        guard let extensionEntry = X509V3_EXT_conf_nid(nil, nil, NID_subject_alt_name, names.joined(separator: ",")) else { return false }
        defer { X509_EXTENSION_free(extensionEntry) }
        return X509_add_ext(certificate, extensionEntry, -1) == 1
    }

    /// OpenSSL contexts keep their own references to what they install.
    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }

    /// The DER encoding of `certificate`, or nil.
    static func der(of certificate: OpaquePointer) -> [UInt8]? {
        let length = i2d_X509(certificate, nil)
        guard length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_X509(certificate, &cursor)
        }
        return written == length ? bytes : nil
    }

    /// SHA-256 of the DER certificate as colon-separated upper-case hex.
    static func fingerprint(of certificate: OpaquePointer) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 else { return "unknown" }
        let hexDigits = Array("0123456789ABCDEF")
        return digest[0..<Int(length)].map { String([hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 15)]]) }
            .joined(separator: ":")
    }
}
