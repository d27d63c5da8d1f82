import COpenSSL
import CastProtocol

/// Checks the Cast CRL a receiver sends (`AuthResponse.crl`), as Chromium's
/// cast_crl.cc does: the first CRL of version 0 in the bundle, its
/// RSASSA-PKCS1-v1_5 SHA-256 signature over the `tbs_crl` bytes by
/// `signer_cert`, the signer's chain up to a CRL trust anchor, the CRL's
/// validity window, sane serial ranges; then whether it revokes a key of the
/// verified device chain (SHA-256 of the SubjectPublicKeyInfo), or a serial
/// number under an issuer key.
///
/// The receiver chooses what to send, so a receiver with a revoked
/// certificate can omit the CRL: this is advisory, never a guarantee.
enum RevocationCheck {
    enum Outcome: Equatable {
        case checked
        case unverifiable(String)
        case revoked(String)
    }

    static func check(_ bytes: [UInt8], chain: [X509Certificate], crlRoots: [X509Certificate], anchors: String,
                      at time: Int64) -> Outcome {
        guard !crlRoots.isEmpty else {
            return .unverifiable("no CRL trust anchor in \(anchors)/crl, so the receiver's CRL was not checked")
        }
        let bundle: CastCRLBundle
        do {
            bundle = try CastCRLBundle(serialized: bytes)
        } catch {
            return .unverifiable("the CRL is not a CrlBundle: \(error)")
        }
        var chosen: (CastCRLBundle.CRL, CastTBSCRL)?
        for crl in bundle.crls {
            guard let tbsBytes = crl.tbsCRL, let tbs = try? CastTBSCRL(serialized: tbsBytes), tbs.version == 0 else { continue }
            chosen = (crl, tbs)
            break
        }
        guard let (crl, tbs) = chosen else { return .unverifiable("the CRL bundle holds no CRL of version 0") }
        guard let signature = crl.signature, let signerDER = crl.signerCertificate, let tbsBytes = crl.tbsCRL else {
            return .unverifiable("the CRL lacks its signature or signer certificate")
        }
        let signer: X509Certificate
        do {
            signer = try X509Certificate(der: signerDER)
        } catch {
            return .unverifiable("the CRL signer certificate is unreadable: \(error)")
        }
        guard let key = signer.publicKey, signer.isRSA, RSASignature.verify(signature, over: tbsBytes, key: key, hash: .sha256) else {
            return .unverifiable("the CRL signature does not verify with its signer certificate")
        }
        switch CertificateChain.verify(leaf: signer, intermediates: [], anchors: crlRoots, purpose: 0, at: time) {
        case .success: break
        case .failure(let failure):
            return .unverifiable("the CRL signer is not trusted: \(failure.deviceAuthError(chain: [signer], anchors: anchors + "/crl").message)")
        }
        guard tbs.notBeforeSeconds <= UInt64(max(time, 0)), UInt64(max(time, 0)) <= tbs.notAfterSeconds else {
            return .unverifiable("the CRL is outside its validity window")
        }
        guard tbs.revokedSerialNumberRanges.allSatisfy({ $0.firstSerialNumber <= $0.lastSerialNumber }) else {
            return .unverifiable("the CRL has a malformed serial number range")
        }

        let revokedKeys = Set(tbs.revokedPublicKeyHashes)
        let hashes = chain.map { $0.subjectPublicKeyInfo.map(RSASignature.sha256) }
        for (index, certificate) in chain.enumerated() {
            guard let hash = hashes[index] else { continue }
            if revokedKeys.contains(hash) {
                return .revoked("the CRL revokes the key of \(index == 0 ? "the device certificate" : "certificate \(index) of the chain") (\(certificate.displayName))")
            }
            guard index > 0, let serial = chain[index - 1].serialNumber else { continue }
            for range in tbs.revokedSerialNumberRanges where range.issuerPublicKeyHash == hash {
                if range.firstSerialNumber <= serial, serial <= range.lastSerialNumber {
                    return .revoked("the CRL revokes serial number \(serial) issued by \(certificate.displayName)")
                }
            }
        }
        return .checked
    }
}
