import COpenSSL

/// An OpenSSL `SSL_CTX` configured for Cast: TLS 1.2 or newer, non-blocking
/// partial writes, and an unexpected EOF treated as a close.
///
/// Cast receivers present short-lived self-signed certificates, so the
/// client does not verify the chain; the peer's SHA-256 fingerprint is logged
/// instead (device authentication is a separate, later step).
public final class TLSContext: @unchecked Sendable {
    let pointer: OpaquePointer
    /// SHA-256 fingerprint of this side's certificate (servers only).
    public let certificateFingerprint: String?
    /// This side's certificate, DER (servers only): what a receiver signs in device authentication.
    public let certificate: [UInt8]?

    private init(pointer: OpaquePointer, certificateFingerprint: String?, certificate: [UInt8]? = nil) {
        self.pointer = pointer
        self.certificateFingerprint = certificateFingerprint
        self.certificate = certificate
    }

    deinit { SSL_CTX_free(pointer) }

    /// A context for connecting to receivers.
    public static func client() throws -> TLSContext {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TLSError(.setupFailed, "cannot create a TLS client context: \(OpenSSLErrors.drain())")
        }
        do {
            try configureCommon(context)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        return TLSContext(pointer: context, certificateFingerprint: nil)
    }

    /// A server context with a fresh P-256 key and a self-signed certificate
    /// for `commonName`, valid for `validDays` (real receivers use a few days).
    public static func server(commonName: String, validDays: Int = 2) throws -> TLSContext {
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TLSError(.setupFailed, "cannot create a TLS server context: \(OpenSSLErrors.drain())")
        }
        do {
            try configureCommon(context)
            let certificate = try SelfSignedCertificate(commonName: commonName, validDays: validDays)
            guard SSL_CTX_use_certificate(context, certificate.certificate) == 1,
                  SSL_CTX_use_PrivateKey(context, certificate.key) == 1,
                  SSL_CTX_check_private_key(context) == 1 else {
                throw TLSError(.setupFailed, "cannot install the generated certificate: \(OpenSSLErrors.drain())")
            }
            return TLSContext(pointer: context, certificateFingerprint: certificate.fingerprint,
                              certificate: SelfSignedCertificate.der(of: certificate.certificate))
        } catch {
            SSL_CTX_free(context)
            throw error
        }
    }

    /// A server context with the certificate and key in PEM files (tests use
    /// fixed ones; a receiver's are short-lived and self-signed).
    public static func server(certificateFile: String, keyFile: String) throws -> TLSContext {
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TLSError(.setupFailed, "cannot create a TLS server context: \(OpenSSLErrors.drain())")
        }
        try configureCommon(context)  // frees the context itself when it fails
        do {
            guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
                throw TLSError(.setupFailed, "cannot load the TLS certificate \(certificateFile): \(OpenSSLErrors.drain())")
            }
            guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1,
                  SSL_CTX_check_private_key(context) == 1 else {
                throw TLSError(.setupFailed, "cannot load the TLS key \(keyFile) (or it does not match the certificate): \(OpenSSLErrors.drain())")
            }
            guard let installed = SSL_CTX_get0_certificate(context) else {
                throw TLSError(.setupFailed, "no certificate installed from \(certificateFile)")
            }
            return TLSContext(pointer: context, certificateFingerprint: SelfSignedCertificate.fingerprint(of: installed),
                              certificate: SelfSignedCertificate.der(of: installed))
        } catch {
            SSL_CTX_free(context)
            throw error
        }
    }

    /// Leaves freeing `context` on failure to the caller (server() used to free it twice).
    private static func configureCommon(_ context: OpaquePointer) throws {
        guard cg_ssl_ctx_require_tls12(context) == 1 else {
            throw TLSError(.setupFailed, "cannot require TLS 1.2: \(OpenSSLErrors.drain())")
        }
        _ = cg_ssl_ctx_enable_partial_writes(context)
        cg_ssl_ctx_ignore_unexpected_eof(context)
    }
}

/// Reads and clears OpenSSL's thread-local error queue (COpenSSL's one drain).
enum OpenSSLErrors {
    static func drain() -> String { String(cString: cg_openssl_errors()) }
}
