/// The revocation data a receiver may send in `AuthResponse.crl`: a
/// serialized `CrlBundle` from Chromium's `revocation.proto` (proto2).
///
/// ```
/// CrlBundle { repeated Crl crls = 1; }
/// Crl { bytes tbs_crl = 1; bytes signer_cert = 2; bytes signature = 3; }
/// TbsCrl { uint64 version = 1; uint64 not_before_seconds = 2; uint64 not_after_seconds = 3;
///          repeated bytes revoked_public_key_hashes = 4;
///          repeated SerialNumberRange revoked_serial_number_ranges = 5; }
/// SerialNumberRange { bytes issuer_public_key_hash = 1; uint64 first_serial_number = 2;
///                     uint64 last_serial_number = 3; }
/// ```
/// Version 0 (the only one) means: SHA-256 hashes of SubjectPublicKeyInfo,
/// and an RSASSA-PKCS1-v1_5 SHA-256 signature over the `tbs_crl` bytes.
public struct CastCRLBundle: Sendable, Equatable {
    /// One signed revocation list. `tbsCRL` is kept as received because the
    /// signature covers exactly those bytes.
    public struct CRL: Sendable, Equatable {
        public var tbsCRL: [UInt8]?
        public var signerCertificate: [UInt8]?
        public var signature: [UInt8]?

        public init(tbsCRL: [UInt8]? = nil, signerCertificate: [UInt8]? = nil, signature: [UInt8]? = nil) {
            self.tbsCRL = tbsCRL
            self.signerCertificate = signerCertificate
            self.signature = signature
        }
    }

    public var crls: [CRL]

    public init(crls: [CRL]) {
        self.crls = crls
    }

    public func serialized() -> [UInt8] {
        var writer = ProtobufWriter()
        for crl in crls {
            var inner = ProtobufWriter()
            if let tbs = crl.tbsCRL { inner.writeBytesField(1, tbs) }
            if let signer = crl.signerCertificate { inner.writeBytesField(2, signer) }
            if let signature = crl.signature { inner.writeBytesField(3, signature) }
            writer.writeBytesField(1, inner.bytes)
        }
        return writer.bytes
    }

    public init(serialized bytes: [UInt8]) throws(CastProtocolError) {
        var crls: [CRL] = []
        var reader = ProtobufReader(bytes)
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readKey()
            guard field == 1 else {
                try reader.skip(wireType, field: field)
                continue
            }
            try DeviceAuthMessage.expect(wireType, .lengthDelimited, field: field, in: "CrlBundle")
            var inner = ProtobufReader(Array(try reader.readLengthDelimited()))
            var crl = CRL()
            while !inner.isAtEnd {
                let (innerField, innerType) = try inner.readKey()
                guard (1...3).contains(innerField) else {
                    try inner.skip(innerType, field: innerField)
                    continue
                }
                try DeviceAuthMessage.expect(innerType, .lengthDelimited, field: innerField, in: "Crl")
                let value = Array(try inner.readLengthDelimited())
                switch innerField {
                case 1: crl.tbsCRL = value
                case 2: crl.signerCertificate = value
                default: crl.signature = value
                }
            }
            crls.append(crl)
        }
        self.init(crls: crls)
    }
}

/// The signed body of one CRL (`TbsCrl`).
public struct CastTBSCRL: Sendable, Equatable {
    /// An inclusive range of revoked serial numbers under one issuer key.
    public struct SerialNumberRange: Sendable, Equatable {
        /// SHA-256 of the issuer's SubjectPublicKeyInfo (version 0).
        public var issuerPublicKeyHash: [UInt8]
        public var firstSerialNumber: UInt64
        public var lastSerialNumber: UInt64

        public init(issuerPublicKeyHash: [UInt8], firstSerialNumber: UInt64, lastSerialNumber: UInt64) {
            self.issuerPublicKeyHash = issuerPublicKeyHash
            self.firstSerialNumber = firstSerialNumber
            self.lastSerialNumber = lastSerialNumber
        }
    }

    public var version: UInt64
    /// Inclusive validity, Unix seconds.
    public var notBeforeSeconds: UInt64
    public var notAfterSeconds: UInt64
    /// SHA-256 hashes of revoked SubjectPublicKeyInfos (version 0).
    public var revokedPublicKeyHashes: [[UInt8]]
    public var revokedSerialNumberRanges: [SerialNumberRange]

    public init(version: UInt64 = 0, notBeforeSeconds: UInt64 = 0, notAfterSeconds: UInt64 = 0,
                revokedPublicKeyHashes: [[UInt8]] = [], revokedSerialNumberRanges: [SerialNumberRange] = []) {
        self.version = version
        self.notBeforeSeconds = notBeforeSeconds
        self.notAfterSeconds = notAfterSeconds
        self.revokedPublicKeyHashes = revokedPublicKeyHashes
        self.revokedSerialNumberRanges = revokedSerialNumberRanges
    }

    public func serialized() -> [UInt8] {
        var writer = ProtobufWriter()
        writer.writeVarintField(1, version)
        writer.writeVarintField(2, notBeforeSeconds)
        writer.writeVarintField(3, notAfterSeconds)
        for hash in revokedPublicKeyHashes { writer.writeBytesField(4, hash) }
        for range in revokedSerialNumberRanges {
            var inner = ProtobufWriter()
            inner.writeBytesField(1, range.issuerPublicKeyHash)
            inner.writeVarintField(2, range.firstSerialNumber)
            inner.writeVarintField(3, range.lastSerialNumber)
            writer.writeBytesField(5, inner.bytes)
        }
        return writer.bytes
    }

    public init(serialized bytes: [UInt8]) throws(CastProtocolError) {
        self.init()
        var reader = ProtobufReader(bytes)
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readKey()
            switch field {
            case 1, 2, 3:
                try DeviceAuthMessage.expect(wireType, .varint, field: field, in: "TbsCrl")
                let value = try reader.readVarint()
                if field == 1 { version = value } else if field == 2 { notBeforeSeconds = value } else { notAfterSeconds = value }
            case 4:
                try DeviceAuthMessage.expect(wireType, .lengthDelimited, field: field, in: "TbsCrl")
                revokedPublicKeyHashes.append(Array(try reader.readLengthDelimited()))
            case 5:
                try DeviceAuthMessage.expect(wireType, .lengthDelimited, field: field, in: "TbsCrl")
                var inner = ProtobufReader(Array(try reader.readLengthDelimited()))
                var range = SerialNumberRange(issuerPublicKeyHash: [], firstSerialNumber: 0, lastSerialNumber: 0)
                while !inner.isAtEnd {
                    let (innerField, innerType) = try inner.readKey()
                    switch innerField {
                    case 1:
                        try DeviceAuthMessage.expect(innerType, .lengthDelimited, field: innerField, in: "SerialNumberRange")
                        range.issuerPublicKeyHash = Array(try inner.readLengthDelimited())
                    case 2, 3:
                        try DeviceAuthMessage.expect(innerType, .varint, field: innerField, in: "SerialNumberRange")
                        let value = try inner.readVarint()
                        if innerField == 2 { range.firstSerialNumber = value } else { range.lastSerialNumber = value }
                    default:
                        try inner.skip(innerType, field: innerField)
                    }
                }
                revokedSerialNumberRanges.append(range)
            default:
                try reader.skip(wireType, field: field)
            }
        }
    }
}
