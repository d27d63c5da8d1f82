#if canImport(Glibc)
import Glibc
#endif
import COpenSSL

/// One parsed X.509 certificate (an owned OpenSSL `X509`), with the few
/// properties device authentication looks at.
public final class X509Certificate: @unchecked Sendable {
    /// Immutable after init; OpenSSL only reads it (reference counts are atomic).
    let pointer: OpaquePointer
    /// The DER encoding, exactly as parsed or as OpenSSL encodes it.
    public let der: [UInt8]

    /// Parses one DER certificate; trailing bytes are an error.
    public init(der: [UInt8]) throws(DeviceAuthFailure) {
        guard !der.isEmpty else { throw DeviceAuthFailure("an empty certificate") }
        var consumed = 0
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let result = d2i_X509(nil, &cursor, buffer.count)
            if let cursor, let base = buffer.baseAddress { consumed = cursor - base }
            return result
        }
        guard let parsed else { throw DeviceAuthFailure("not a DER certificate (\(OpenSSLErrors.drain()))") }
        guard consumed == der.count else {
            X509_free(parsed)
            throw DeviceAuthFailure("\(der.count - consumed) bytes after the certificate")
        }
        pointer = parsed
        self.der = der
    }

    /// Takes ownership of `pointer` (freed here when this fails).
    init(owning pointer: OpaquePointer) throws(DeviceAuthFailure) {
        self.pointer = pointer
        let length = i2d_X509(pointer, nil)
        guard length > 0 else {
            X509_free(pointer)  // deinit does not run for a half-made object
            throw DeviceAuthFailure("cannot encode a certificate (\(OpenSSLErrors.drain()))")
        }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_X509(pointer, &cursor)
        }
        guard written == length else {
            X509_free(pointer)
            throw DeviceAuthFailure("cannot encode a certificate")
        }
        der = bytes
    }

    deinit { X509_free(pointer) }

    /// Every certificate in PEM `text` (other PEM blocks are skipped).
    public static func certificates(pem text: String) throws(DeviceAuthFailure) -> [X509Certificate] {
        let bytes = Array(text.utf8)
        guard bytes.count < Int(Int32.max) else { throw DeviceAuthFailure("PEM text too large") }
        var result: [X509Certificate] = []
        let bio: OpaquePointer? = bytes.withUnsafeBytes { BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }
        guard let bio else { throw DeviceAuthFailure("out of memory") }
        defer { BIO_free(bio) }
        // BIO_new_mem_buf does not copy: `bytes` must stay alive while reading.
        try withExtendedLifetime(bytes) { () throws(DeviceAuthFailure) in
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                result.append(try X509Certificate(owning: certificate))
            }
        }
        _ = OpenSSLErrors.drain()  // the end of input reads as an error
        return result
    }

    // MARK: Properties

    /// Seconds since 1970 of notBefore / notAfter, or nil if unreadable.
    public var notBefore: Int64? { Self.seconds(X509_get0_notBefore(pointer)) }
    public var notAfter: Int64? { Self.seconds(X509_get0_notAfter(pointer)) }

    private static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Int64(timegm(&parts))
    }

    /// The subject's common name, if any.
    public var commonName: String? {
        guard let name = X509_get_subject_name(pointer) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index),
              let data = X509_NAME_ENTRY_get_data(entry), let bytes = ASN1_STRING_get0_data(data) else { return nil }
        let length = Int(ASN1_STRING_length(data))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: max(length, 0)), as: UTF8.self)
    }

    /// A readable name for messages: the common name, or "a certificate without a name".
    public var displayName: String { commonName.map { "\"\($0)\"" } ?? "a certificate without a common name" }

    /// DER of the SubjectPublicKeyInfo (what Cast CRLs hash).
    var subjectPublicKeyInfo: [UInt8]? {
        guard let key = X509_get_X509_PUBKEY(pointer) else { return nil }
        let length = i2d_X509_PUBKEY(key, nil)
        guard length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_X509_PUBKEY(key, &cursor)
        }
        return written == length ? bytes : nil
    }

    /// The serial number when it is positive and fits 64 bits.
    var serialNumber: UInt64? {
        guard let serial = X509_get0_serialNumber(pointer) else { return nil }
        var value: UInt64 = 0
        return ASN1_INTEGER_get_uint64(&value, serial) == 1 ? value : nil
    }

    /// The keyUsage bits (`KU_*`), or nil without a keyUsage extension.
    var keyUsage: UInt32? {
        let usage = X509_get_key_usage(pointer)
        guard X509_get_extension_flags(pointer) & UInt32(EXFLAG_KUSAGE) != 0 else { return nil }
        return usage
    }

    /// The public key (borrowed from the certificate).
    var publicKey: OpaquePointer? { X509_get0_pubkey(pointer) }

    /// Whether the key is RSA, and its size in bits.
    var isRSA: Bool { publicKey.map { EVP_PKEY_get_base_id($0) == EVP_PKEY_RSA } ?? false }
    var keyBits: Int { publicKey.map { Int(EVP_PKEY_get_bits($0)) } ?? 0 }

    /// Whether the certificatePolicies extension lists `oid`; nil when malformed.
    func hasPolicy(_ oid: String) -> Bool? {
        switch cg_x509_has_policy(pointer, oid) {
        case 1: true
        case 0: false
        default: nil
        }
    }
}

/// A certificate or key that could not be read; wrapped into a
/// `DeviceAuthError` or a `DeviceCredentialsError` with context by callers.
public struct DeviceAuthFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Reads and clears OpenSSL's thread-local error queue (COpenSSL's one drain).
enum OpenSSLErrors {
    static func drain() -> String { String(cString: cg_openssl_errors()) }
}
