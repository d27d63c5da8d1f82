/// The device-authentication messages of Cast v2 (`DeviceAuthMessage`,
/// `AuthChallenge`, `AuthResponse`, `AuthError` in `cast_channel.proto`,
/// proto2), carried as BINARY payloads on `CastNamespace.deviceAuth`.
///
/// Optional fields are kept as optionals so that what was on the wire is
/// encoded back byte for byte; the `effective…` accessors apply proto2
/// defaults. A sub-message that appears twice is taken from its last
/// occurrence (protobuf would merge; no sender or receiver repeats them).
public struct DeviceAuthMessage: Sendable, Equatable {
    public var challenge: AuthChallenge?
    public var response: AuthResponse?
    public var error: AuthError?

    public init(challenge: AuthChallenge? = nil, response: AuthResponse? = nil, error: AuthError? = nil) {
        self.challenge = challenge
        self.response = response
        self.error = error
    }

    public func serialized() -> [UInt8] {
        var writer = ProtobufWriter()
        if let challenge { writer.writeBytesField(1, challenge.serialized()) }
        if let response { writer.writeBytesField(2, response.serialized()) }
        if let error { writer.writeBytesField(3, error.serialized()) }
        return writer.bytes
    }

    public init(serialized bytes: [UInt8]) throws(CastProtocolError) {
        self.init()
        var reader = ProtobufReader(bytes)
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readKey()
            switch field {
            case 1...3:
                try Self.expect(wireType, .lengthDelimited, field: field, in: "DeviceAuthMessage")
                let body = Array(try reader.readLengthDelimited())
                switch field {
                case 1: challenge = try AuthChallenge(serialized: body)
                case 2: response = try AuthResponse(serialized: body)
                default: error = try AuthError(serialized: body)
                }
            default:
                try reader.skip(wireType, field: field)
            }
        }
    }

    static func expect(_ actual: ProtobufWireType, _ expected: ProtobufWireType, field: UInt64,
                       in message: String) throws(CastProtocolError) {
        guard actual == expected else {
            throw CastProtocolError(.invalidFieldValue, "\(message) field \(field) has wire type \(actual.rawValue)")
        }
    }
}

/// `SignatureAlgorithm`: how the receiver signs (only PKCS#1 v1.5 is used).
public enum AuthSignatureAlgorithm: Sendable, Equatable {
    case unspecified
    case rsassaPKCS1v15
    case rsassaPSS
    case unknown(UInt64)

    public init(rawValue: UInt64) {
        switch rawValue {
        case 0: self = .unspecified
        case 1: self = .rsassaPKCS1v15
        case 2: self = .rsassaPSS
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: UInt64 {
        switch self {
        case .unspecified: 0
        case .rsassaPKCS1v15: 1
        case .rsassaPSS: 2
        case .unknown(let value): value
        }
    }
}

/// `HashAlgorithm`: the digest under the signature.
public enum AuthHashAlgorithm: Sendable, Equatable {
    case sha1
    case sha256
    case unknown(UInt64)

    public init(rawValue: UInt64) {
        switch rawValue {
        case 0: self = .sha1
        case 1: self = .sha256
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: UInt64 {
        switch self {
        case .sha1: 0
        case .sha256: 1
        case .unknown(let value): value
        }
    }

    public var name: String {
        switch self {
        case .sha1: "SHA-1"
        case .sha256: "SHA-256"
        case .unknown(let value): "hash algorithm \(value)"
        }
    }
}

/// The sender's challenge: a fresh nonce and the algorithms it asks for.
public struct AuthChallenge: Sendable, Equatable {
    /// Field 1 (default RSASSA_PKCS1v15).
    public var signatureAlgorithm: AuthSignatureAlgorithm?
    /// Field 2.
    public var senderNonce: [UInt8]?
    /// Field 3 (default SHA1).
    public var hashAlgorithm: AuthHashAlgorithm?

    public init(signatureAlgorithm: AuthSignatureAlgorithm? = nil, senderNonce: [UInt8]? = nil,
                hashAlgorithm: AuthHashAlgorithm? = nil) {
        self.signatureAlgorithm = signatureAlgorithm
        self.senderNonce = senderNonce
        self.hashAlgorithm = hashAlgorithm
    }

    /// What this gateway sends: RSASSA-PKCS1-v1_5 with SHA-256 over `nonce`.
    public static func sha256(nonce: [UInt8]) -> AuthChallenge {
        AuthChallenge(signatureAlgorithm: .rsassaPKCS1v15, senderNonce: nonce, hashAlgorithm: .sha256)
    }

    public var effectiveHashAlgorithm: AuthHashAlgorithm { hashAlgorithm ?? .sha1 }

    public func serialized() -> [UInt8] {
        var writer = ProtobufWriter()
        if let signatureAlgorithm { writer.writeVarintField(1, signatureAlgorithm.rawValue) }
        if let senderNonce { writer.writeBytesField(2, senderNonce) }
        if let hashAlgorithm { writer.writeVarintField(3, hashAlgorithm.rawValue) }
        return writer.bytes
    }

    public init(serialized bytes: [UInt8]) throws(CastProtocolError) {
        self.init()
        var reader = ProtobufReader(bytes)
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readKey()
            switch field {
            case 1:
                try DeviceAuthMessage.expect(wireType, .varint, field: field, in: "AuthChallenge")
                signatureAlgorithm = AuthSignatureAlgorithm(rawValue: try reader.readVarint())
            case 2:
                try DeviceAuthMessage.expect(wireType, .lengthDelimited, field: field, in: "AuthChallenge")
                senderNonce = Array(try reader.readLengthDelimited())
            case 3:
                try DeviceAuthMessage.expect(wireType, .varint, field: field, in: "AuthChallenge")
                hashAlgorithm = AuthHashAlgorithm(rawValue: try reader.readVarint())
            default:
                try reader.skip(wireType, field: field)
            }
        }
    }
}

/// The receiver's answer: its signature and the certificates to check it with.
public struct AuthResponse: Sendable, Equatable {
    /// Field 1 (required): signature over `sender_nonce || DER(TLS certificate)`.
    public var signature: [UInt8]
    /// Field 2 (required): the device certificate (DER).
    public var clientAuthCertificate: [UInt8]
    /// Field 3 (repeated): intermediate certificates (DER), nearest first.
    public var intermediateCertificates: [[UInt8]]
    /// Field 4 (default RSASSA_PKCS1v15).
    public var signatureAlgorithm: AuthSignatureAlgorithm?
    /// Field 5: the nonce the receiver signed.
    public var senderNonce: [UInt8]?
    /// Field 6 (default SHA1).
    public var hashAlgorithm: AuthHashAlgorithm?
    /// Field 7: a serialized `CrlBundle` (see `CastCRLBundle`).
    public var crl: [UInt8]?

    public init(signature: [UInt8], clientAuthCertificate: [UInt8], intermediateCertificates: [[UInt8]] = [],
                signatureAlgorithm: AuthSignatureAlgorithm? = nil, senderNonce: [UInt8]? = nil,
                hashAlgorithm: AuthHashAlgorithm? = nil, crl: [UInt8]? = nil) {
        self.signature = signature
        self.clientAuthCertificate = clientAuthCertificate
        self.intermediateCertificates = intermediateCertificates
        self.signatureAlgorithm = signatureAlgorithm
        self.senderNonce = senderNonce
        self.hashAlgorithm = hashAlgorithm
        self.crl = crl
    }

    public var effectiveHashAlgorithm: AuthHashAlgorithm { hashAlgorithm ?? .sha1 }

    public func serialized() -> [UInt8] {
        var writer = ProtobufWriter(reservingCapacity: 64 + signature.count + clientAuthCertificate.count)
        writer.writeBytesField(1, signature)
        writer.writeBytesField(2, clientAuthCertificate)
        for certificate in intermediateCertificates { writer.writeBytesField(3, certificate) }
        if let signatureAlgorithm { writer.writeVarintField(4, signatureAlgorithm.rawValue) }
        if let senderNonce { writer.writeBytesField(5, senderNonce) }
        if let hashAlgorithm { writer.writeVarintField(6, hashAlgorithm.rawValue) }
        if let crl { writer.writeBytesField(7, crl) }
        return writer.bytes
    }

    public init(serialized bytes: [UInt8]) throws(CastProtocolError) {
        var signature: [UInt8]?
        var certificate: [UInt8]?
        var intermediates: [[UInt8]] = []
        var signatureAlgorithm: AuthSignatureAlgorithm?
        var nonce: [UInt8]?
        var hashAlgorithm: AuthHashAlgorithm?
        var crl: [UInt8]?
        var reader = ProtobufReader(bytes)
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readKey()
            switch field {
            case 1, 2, 3, 5, 7:
                try DeviceAuthMessage.expect(wireType, .lengthDelimited, field: field, in: "AuthResponse")
                let value = Array(try reader.readLengthDelimited())
                switch field {
                case 1: signature = value
                case 2: certificate = value
                case 3: intermediates.append(value)
                case 5: nonce = value
                default: crl = value
                }
            case 4, 6:
                try DeviceAuthMessage.expect(wireType, .varint, field: field, in: "AuthResponse")
                let value = try reader.readVarint()
                if field == 4 {
                    signatureAlgorithm = AuthSignatureAlgorithm(rawValue: value)
                } else {
                    hashAlgorithm = AuthHashAlgorithm(rawValue: value)
                }
            default:
                try reader.skip(wireType, field: field)
            }
        }
        guard let signature else { throw CastProtocolError(.missingRequiredField, "AuthResponse signature (1) is missing") }
        guard let certificate else {
            throw CastProtocolError(.missingRequiredField, "AuthResponse client_auth_certificate (2) is missing")
        }
        self.init(signature: signature, clientAuthCertificate: certificate, intermediateCertificates: intermediates,
                  signatureAlgorithm: signatureAlgorithm, senderNonce: nonce, hashAlgorithm: hashAlgorithm, crl: crl)
    }
}

/// The receiver could not answer the challenge.
public struct AuthError: Sendable, Equatable {
    /// `AuthError.ErrorType`.
    public enum ErrorType: Sendable, Equatable {
        case internalError
        /// The underlying connection is not TLS.
        case noTLS
        case signatureAlgorithmUnavailable
        case unknown(UInt64)

        public init(rawValue: UInt64) {
            switch rawValue {
            case 0: self = .internalError
            case 1: self = .noTLS
            case 2: self = .signatureAlgorithmUnavailable
            default: self = .unknown(rawValue)
            }
        }

        public var rawValue: UInt64 {
            switch self {
            case .internalError: 0
            case .noTLS: 1
            case .signatureAlgorithmUnavailable: 2
            case .unknown(let value): value
            }
        }

        /// The name in `cast_channel.proto`.
        public var name: String {
            switch self {
            case .internalError: "INTERNAL_ERROR"
            case .noTLS: "NO_TLS"
            case .signatureAlgorithmUnavailable: "SIGNATURE_ALGORITHM_UNAVAILABLE"
            case .unknown(let value): "error type \(value)"
            }
        }
    }

    /// Field 1 (required).
    public var errorType: ErrorType

    public init(errorType: ErrorType) {
        self.errorType = errorType
    }

    public func serialized() -> [UInt8] {
        var writer = ProtobufWriter()
        writer.writeVarintField(1, errorType.rawValue)
        return writer.bytes
    }

    public init(serialized bytes: [UInt8]) throws(CastProtocolError) {
        var type: ErrorType?
        var reader = ProtobufReader(bytes)
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readKey()
            if field == 1 {
                try DeviceAuthMessage.expect(wireType, .varint, field: field, in: "AuthError")
                type = ErrorType(rawValue: try reader.readVarint())
            } else {
                try reader.skip(wireType, field: field)
            }
        }
        guard let type else { throw CastProtocolError(.missingRequiredField, "AuthError error_type (1) is missing") }
        self.init(errorType: type)
    }
}
