// libFuzzer entry for what a receiver sends in device authentication: the
// DeviceAuthMessage protobuf, certificates (DER and PEM), CRL bundles, and
// the whole verification of an answer with fuzzed parts. Built with the
// CastProtocol, SystemSupport and DeviceAuth sources by
// Fuzz/run-device-auth.sh, which makes a test PKI and points
// CAST_FUZZ_PKI at it; any crash, hang or sanitizer report is a bug.

#if canImport(Glibc)
import Glibc
#endif
import CastProtocol
@testable import DeviceAuth

/// A genuine answer from the test PKI, whose parts the fuzzer replaces.
private struct Fixture {
    let verifier: DeviceAuthVerifier
    let challenge: AuthChallenge
    let response: AuthResponse
    let tlsCertificate: [UInt8]

    static let shared: Fixture = {
        guard let pki = getenv("CAST_FUZZ_PKI").map({ String(cString: $0) }) else {
            fatalError("set CAST_FUZZ_PKI to a directory made by Tests/pki/make-test-pki.sh (Fuzz/run-device-auth.sh does)")
        }
        do {
            let anchors = try TrustAnchors.load(directory: pki + "/anchors")
            let credentials = try DeviceCredentials.load(directory: pki + "/sim-valid")
            guard let tls = try X509Certificate.certificates(pem: String(decoding: readFile(pki + "/tls.pem"), as: UTF8.self)).first else {
                fatalError("no TLS certificate in \(pki)")
            }
            let verifier = DeviceAuthVerifier(anchors: anchors)
            let challenge = try verifier.makeChallenge()
            let response = try credentials.response(nonce: challenge.senderNonce ?? [], hashAlgorithm: .sha256,
                                                    tlsCertificate: tls.der)
            let fixture = Fixture(verifier: verifier, challenge: challenge, response: response, tlsCertificate: tls.der)
            guard case .success = fixture.verify(DeviceAuthMessage(response: response).serialized()) else {
                fatalError("the genuine answer does not verify: the fixture is broken")
            }
            return fixture
        } catch {
            fatalError("cannot load the fuzz PKI from \(pki): \(error)")
        }
    }()

    func verify(_ reply: [UInt8]) -> Result<DeviceAuthResult, DeviceAuthError> {
        verifier.verify(reply: reply, to: challenge, peerCertificate: tlsCertificate)
    }

    func verify(_ response: AuthResponse) -> Result<DeviceAuthResult, DeviceAuthError> {
        verify(DeviceAuthMessage(response: response).serialized())
    }
}

private func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "r") else { return [] }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count == 0 { break }
        bytes += buffer[0..<count]
    }
    return bytes
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeviceAuth(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = bytes.first else { return 0 }
    let input = Array(bytes.dropFirst())
    let fixture = Fixture.shared
    switch mode % 6 {
    case 0:
        // A whole answer: decode, round-trip, verify.
        if let message = try? DeviceAuthMessage(serialized: input) {
            let again = try? DeviceAuthMessage(serialized: message.serialized())
            if again != message { fatalError("DeviceAuthMessage did not round-trip") }
        }
        let decoded = (try? DeviceAuthMessage(serialized: input))?.response
        expectFailure(fixture.verify(input), unless: decoded.map {
            $0.signature == fixture.response.signature && $0.clientAuthCertificate == fixture.response.clientAuthCertificate
        } ?? false)
    case 1:
        // A DER certificate and everything read from it.
        if let certificate = try? X509Certificate(der: input) {
            _ = certificate.notBefore
            _ = certificate.notAfter
            _ = certificate.displayName
            if certificate.der != input { fatalError("DER changed on parsing") }
        }
    case 2:
        // A CRL bundle on an otherwise genuine answer: never fatal to it
        // unless it verifies (it cannot: the fuzzer has no CRL signer key).
        _ = try? CastCRLBundle(serialized: input)
        _ = try? CastTBSCRL(serialized: input)
        var response = fixture.response
        response.crl = input
        if case .failure(let error) = fixture.verify(response) {
            fatalError("an unverifiable CRL rejected a genuine answer: \(error)")
        }
    case 3:
        // PEM text (trust-anchor files).
        _ = try? X509Certificate.certificates(pem: String(decoding: input, as: UTF8.self))
    case 4:
        // A fuzzed device certificate in a genuine answer.
        var response = fixture.response
        response.clientAuthCertificate = input
        expectFailure(fixture.verify(response), unless: sameKey(input, fixture.response.clientAuthCertificate))
    default:
        // A fuzzed intermediate, or a fuzzed signature.
        var response = fixture.response
        if input.first.map({ $0 & 1 == 0 }) ?? true {
            response.intermediateCertificates = [Array(input.dropFirst())]
        } else {
            response.signature = Array(input.dropFirst())
        }
        expectFailure(fixture.verify(response), unless: response.signature == fixture.response.signature
            && zip(response.intermediateCertificates, fixture.response.intermediateCertificates).allSatisfy(sameKey))
    }
    return 0
}

/// Whether `der` is a certificate (maybe encoded otherwise) for the key of `genuine`.
private func sameKey(_ der: [UInt8], _ genuine: [UInt8]) -> Bool {
    guard let certificate = try? X509Certificate(der: der), let original = try? X509Certificate(der: genuine) else { return false }
    return certificate.subjectPublicKeyInfo == original.subjectPublicKeyInfo
}

/// Anything but the genuine answer must fail verification.
private func expectFailure(_ result: Result<DeviceAuthResult, DeviceAuthError>, unless genuine: Bool) {
    if case .success = result, !genuine { fatalError("a forged answer was accepted") }
    if case .failure(let error) = result { _ = error.message }
}
