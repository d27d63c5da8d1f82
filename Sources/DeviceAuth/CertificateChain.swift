import COpenSSL
import CastProtocol

/// Path building and RFC 5280 checks by OpenSSL's `X509_verify_cert`, with
/// the rules Chromium's Cast validator adds (cast_cert_validator.cc):
/// purpose TLS client (an extendedKeyUsage, where present, must allow
/// clientAuth, on the leaf and on CAs), RSA keys of at least 2048 bits,
/// SHA-1 signatures in the chain accepted (Cast chains use them).
enum CertificateChain {
    /// The chain OpenSSL verified, leaf first, trust anchor last.
    static func verify(leaf: X509Certificate, intermediates: [X509Certificate], anchors: [X509Certificate],
                       purpose: Int32, at time: Int64) -> Result<[X509Certificate], ChainFailure> {
        guard let store = X509_STORE_new() else { return .failure(.internalError("out of memory")) }
        defer { X509_STORE_free(store) }
        for anchor in anchors where X509_STORE_add_cert(store, anchor.pointer) != 1 {
            _ = OpenSSLErrors.drain()  // a duplicate anchor is harmless
        }
        guard let untrusted = cg_x509_stack_new() else { return .failure(.internalError("out of memory")) }
        defer { cg_x509_stack_free(untrusted) }
        for certificate in intermediates where cg_x509_stack_push(untrusted, certificate.pointer) != 1 {
            return .failure(.internalError("out of memory"))
        }
        guard let context = X509_STORE_CTX_new() else { return .failure(.internalError("out of memory")) }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else {
            return .failure(.internalError("cannot set up verification: \(OpenSSLErrors.drain())"))
        }
        let parameters = X509_STORE_CTX_get0_param(context)
        X509_VERIFY_PARAM_set_time(parameters, time_t(time))
        // Any certificate in the anchor directory is an anchor, as in Chromium's trust store.
        X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN))
        if purpose != 0 { X509_STORE_CTX_set_purpose(context, purpose) }

        guard X509_verify_cert(context) == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            let depth = Int(X509_STORE_CTX_get_error_depth(context))
            let reason = String(cString: X509_verify_cert_error_string(Int(code)))
            _ = OpenSSLErrors.drain()
            return .failure(.rejected(code: code, depth: depth, reason: reason))
        }
        guard let chain = X509_STORE_CTX_get0_chain(context) else { return .failure(.internalError("no chain")) }
        var verified: [X509Certificate] = []
        for index in 0..<cg_x509_stack_count(chain) {
            guard let certificate = cg_x509_stack_get(chain, index), X509_up_ref(certificate) == 1 else {
                return .failure(.internalError("cannot read the verified chain"))
            }
            do {
                verified.append(try X509Certificate(owning: certificate))
            } catch {
                return .failure(.internalError(error.message))
            }
        }
        // Chromium's path builder requires RSA keys of 2048 bits or more.
        for (depth, certificate) in verified.enumerated() where certificate.isRSA && certificate.keyBits < 2048 {
            return .failure(.weakKey(depth: depth, bits: certificate.keyBits))
        }
        return .success(verified)
    }

    enum ChainFailure: Error {
        case rejected(code: Int32, depth: Int, reason: String)
        case weakKey(depth: Int, bits: Int)
        case internalError(String)
    }
}

extension CertificateChain.ChainFailure {
    /// The failure as a device-auth error; `what` names the chain for messages.
    func deviceAuthError(chain: [X509Certificate], anchors: String) -> DeviceAuthError {
        func name(_ depth: Int) -> String {
            let role = depth == 0 ? "the device certificate" : "certificate \(depth) of the chain"
            if depth < chain.count { return "\(role) (\(chain[depth].displayName))" }
            return role
        }
        switch self {
        case .internalError(let message):
            return DeviceAuthError(.internalError, "checking the certificate chain failed on this side: \(message)")
        case .weakKey(let depth, let bits):
            return DeviceAuthError(.certificateRestrictions,
                                   "\(name(depth)) has a \(bits)-bit RSA key; Cast requires 2048 bits or more")
        case .rejected(let code, let depth, let reason):
            switch code {
            case X509_V_ERR_CERT_HAS_EXPIRED:
                return DeviceAuthError(.certificateExpired,
                                       "\(name(depth)) has expired; check this gateway's clock, otherwise the receiver's certificate is out of date")
            case X509_V_ERR_CERT_NOT_YET_VALID:
                return DeviceAuthError(.certificateNotYetValid,
                                       "\(name(depth)) is not valid yet; check this gateway's clock (is NTP running?)")
            case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
                 X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
                 X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
                return DeviceAuthError(.chainUntrusted,
                                       "the device certificate does not chain to a trust anchor in \(anchors) (\(reason) at \(name(depth))): the receiver may not be a genuine Cast device, or \(anchors) lacks the Cast root certificates")
            case X509_V_ERR_CERT_SIGNATURE_FAILURE:
                return DeviceAuthError(.chainUntrusted,
                                       "the signature on \(name(depth)) is invalid: the chain was forged or corrupted")
            case X509_V_ERR_INVALID_CA, X509_V_ERR_INVALID_PURPOSE, X509_V_ERR_KEYUSAGE_NO_CERTSIGN,
                 X509_V_ERR_PATH_LENGTH_EXCEEDED, X509_V_ERR_INVALID_EXTENSION, X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION:
                return DeviceAuthError(.certificateRestrictions,
                                       "\(name(depth)) may not be used this way (\(reason)): it is not a valid Cast device chain")
            default:
                return DeviceAuthError(.chainUntrusted, "the device certificate chain was rejected (\(reason) at \(name(depth)))")
            }
        }
    }
}
