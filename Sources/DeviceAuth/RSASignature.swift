import COpenSSL
import CastProtocol

/// RSASSA-PKCS1-v1_5 signatures and SHA digests, the only cryptography of
/// Cast device authentication.
enum RSASignature {
    static func digest(_ algorithm: AuthHashAlgorithm) -> OpaquePointer? {
        switch algorithm {
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        case .unknown: nil
        }
    }

    /// Whether `signature` is `key`'s PKCS#1 v1.5 signature over `data`.
    static func verify(_ signature: [UInt8], over data: [UInt8], key: OpaquePointer,
                       hash: AuthHashAlgorithm) -> Bool {
        guard let md = digest(hash), EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA,
              let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            _ = OpenSSLErrors.drain()
        }
        guard EVP_DigestVerifyInit(context, nil, md, nil, key) == 1 else { return false }
        return signature.withUnsafeBufferPointer { signatureBuffer in
            data.withUnsafeBufferPointer { dataBuffer in
                EVP_DigestVerify(context, signatureBuffer.baseAddress, signatureBuffer.count,
                                 dataBuffer.baseAddress, dataBuffer.count) == 1
            }
        }
    }

    /// Whether `signature` is a well-formed PKCS#1 v1.5 signature by `key`
    /// with `hash`, whatever data it covers. After `verify` failed this tells
    /// "the key signed something else" from "not this key's signature".
    static func isWellFormed(_ signature: [UInt8], key: OpaquePointer, hash: AuthHashAlgorithm) -> Bool {
        guard let md = digest(hash), EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA,
              let context = EVP_PKEY_CTX_new(key, nil) else { return false }
        defer {
            EVP_PKEY_CTX_free(context)
            _ = OpenSSLErrors.drain()
        }
        guard EVP_PKEY_verify_recover_init(context) == 1,
              EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
              EVP_PKEY_CTX_set_signature_md(context, md) == 1 else { return false }
        var recovered = [UInt8](repeating: 0, count: max(Int(EVP_PKEY_get_size(key)), 64))
        var length = recovered.count
        let status = signature.withUnsafeBufferPointer { signatureBuffer in
            EVP_PKEY_verify_recover(context, &recovered, &length, signatureBuffer.baseAddress, signatureBuffer.count)
        }
        return status == 1 && length == Int(EVP_MD_get_size(md))
    }

    /// `key`'s PKCS#1 v1.5 signature over `data`, or nil.
    static func sign(_ data: [UInt8], key: OpaquePointer, hash: AuthHashAlgorithm) -> [UInt8]? {
        guard let md = digest(hash), let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, md, nil, key) == 1 else { return nil }
        var length = 0
        guard data.withUnsafeBufferPointer({ EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }) == 1,
              length > 0 else { return nil }
        var signature = [UInt8](repeating: 0, count: length)
        let status = data.withUnsafeBufferPointer { dataBuffer in
            EVP_DigestSign(context, &signature, &length, dataBuffer.baseAddress, dataBuffer.count)
        }
        guard status == 1 else { return nil }
        return Array(signature.prefix(length))
    }

    static func sha256(_ data: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = data.withUnsafeBufferPointer { EVP_Digest($0.baseAddress, $0.count, &output, &length, EVP_sha256(), nil) }
        return output
    }
}
