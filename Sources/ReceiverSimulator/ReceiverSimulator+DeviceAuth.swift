import CastProtocol

/// The seam to the simulator's device credentials: the cast-receiver-sim
/// executable plugs in DeviceAuth's `DeviceCredentials`, so this module needs
/// no OpenSSL.
public protocol DeviceAuthSigning: Sendable {
    /// The AuthResponse to a challenge for `nonce`, signed over
    /// `nonce || tlsCertificate` with `hashAlgorithm`.
    func response(nonce: [UInt8], hashAlgorithm: AuthHashAlgorithm, tlsCertificate: [UInt8]) throws -> AuthResponse
}

/// Device credentials of the simulator and the TLS certificate it presents.
public struct SimulatorDeviceAuth: Sendable {
    public var signer: any DeviceAuthSigning
    /// The simulator's own TLS certificate (DER): what its answers bind to.
    public var tlsCertificate: [UInt8]

    public init(signer: any DeviceAuthSigning, tlsCertificate: [UInt8]) {
        self.signer = signer
        self.tlsCertificate = tlsCertificate
    }
}

/// How the simulator misbehaves when answering device-auth challenges.
public enum DeviceAuthFault: String, Sendable, CaseIterable {
    /// Corrupt the signature.
    case wrongSignature = "wrong-signature"
    /// Sign another TLS certificate than the one presented (a man in the middle).
    case otherCertificate = "other-certificate"
    /// Answer every challenge with one old answer, made for another nonce.
    case replay
}

extension ReceiverSimulator {
    /// Answers a device-auth challenge: signed with the configured
    /// credentials, or AuthError INTERNAL_ERROR without any.
    func answerDeviceAuth(_ message: CastMessage, on connection: Connection) {
        guard case .binary(let payload) = message.payload,
              let challenge = (try? DeviceAuthMessage(serialized: payload))?.challenge else {
            logger.warning("connection \(connection.id): ignored a device-auth message that is not a challenge")
            return
        }
        let answer: DeviceAuthMessage
        if let credentials = configuration.deviceAuth {
            do {
                answer = DeviceAuthMessage(response: try makeAuthResponse(challenge, credentials))
            } catch {
                logger.warning("connection \(connection.id): cannot sign the device-auth answer: \(error)")
                answer = DeviceAuthMessage(error: AuthError(errorType: .internalError))
            }
        } else {
            answer = DeviceAuthMessage(error: AuthError(errorType: .internalError))
        }
        send(CastMessage(sourceID: message.destinationID, destinationID: message.sourceID, namespace: CastNamespace.deviceAuth,
                         payload: .binary(answer.serialized())), on: connection)
    }

    private func makeAuthResponse(_ challenge: AuthChallenge, _ credentials: SimulatorDeviceAuth) throws -> AuthResponse {
        let nonce = challenge.senderNonce ?? []
        let hash = challenge.effectiveHashAlgorithm
        switch configuration.faults.deviceAuthFault {
        case nil:
            return try credentials.signer.response(nonce: nonce, hashAlgorithm: hash, tlsCertificate: credentials.tlsCertificate)
        case .wrongSignature:
            var response = try credentials.signer.response(nonce: nonce, hashAlgorithm: hash,
                                                           tlsCertificate: credentials.tlsCertificate)
            if !response.signature.isEmpty { response.signature[response.signature.count / 2] ^= 0x5A }
            return response
        case .otherCertificate:
            // What a relaying man in the middle gets signed: the certificate
            // the genuine device saw, which is not the one the sender sees.
            var other = credentials.tlsCertificate
            if let last = other.indices.last { other[last] ^= 0xFF }
            return try credentials.signer.response(nonce: nonce, hashAlgorithm: hash, tlsCertificate: other)
        case .replay:
            if let recorded = recordedAuthResponse { return recorded }
            let oldNonce = (0..<16).map { _ in UInt8.random(in: 0...255) }
            let recorded = try credentials.signer.response(nonce: oldNonce, hashAlgorithm: hash,
                                                           tlsCertificate: credentials.tlsCertificate)
            recordedAuthResponse = recorded
            return recorded
        }
    }
}
