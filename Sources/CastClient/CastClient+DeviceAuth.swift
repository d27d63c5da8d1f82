import CastProtocol
import SystemSupport

/// The device-authentication settings of a client.
struct DeviceAuthSettings: Sendable {
    var policy = AuthenticationPolicy.off
    var authenticator: (any DeviceAuthenticator)?
}

extension CastClient {
    /// Sets the policy and the authenticator; they apply from the next
    /// connection on (call before `start()` to cover the first). `off`, or a
    /// policy without an authenticator, turns the challenge off.
    public func setDeviceAuthentication(policy: AuthenticationPolicy, authenticator: (any DeviceAuthenticator)?) {
        deviceAuth = DeviceAuthSettings(policy: policy, authenticator: authenticator)
        if policy == .off || authenticator == nil { state.authentication = .off }
    }

    public var authenticationPolicy: AuthenticationPolicy { deviceAuth.policy }

    /// Challenges the receiver right after TLS is up, before anything else is
    /// sent (as Chromium does), and records the outcome. It never ends the
    /// connection: under `require` the commands are refused instead
    /// (`requireAuthenticated`), while heartbeat and status go on.
    func authenticateDevice(on channel: CastChannel, peerCertificate: [UInt8]?) async {
        guard deviceAuth.policy != .off, let authenticator = deviceAuth.authenticator else {
            state.authentication = .off
            return
        }
        let address = configuration.address
        state.authentication = .pending
        let outcome: Result<DeviceAuthResult, DeviceAuthError>
        do {
            let challenge = try authenticator.makeChallenge()
            let reply = try await channel.exchangeDeviceAuth(DeviceAuthMessage(challenge: challenge).serialized(),
                                                             timeout: configuration.requestTimeout)
            outcome = authenticator.verify(reply: reply, to: challenge, peerCertificate: peerCertificate)
        } catch let error as DeviceAuthError {
            outcome = .failure(error)
        } catch {
            let message = (error as? CastError)?.message ?? "\(error)"
            outcome = .failure(DeviceAuthError(.noResponse, "\(message); a genuine Cast receiver always answers"))
        }
        switch outcome {
        case .success(let result):
            state.authentication = .authenticated(result)
            var notes: [String] = []
            if result.audioOnly { notes.append("audio only") }
            if result.usedSHA1 { notes.append("legacy SHA-1 signature") }
            switch result.revocation {
            case .notProvided: notes.append("no CRL sent")
            case .checked: notes.append("CRL checked")
            case .unverifiable(let reason): notes.append("CRL not checked: \(reason)")
            }
            logger.info("\(address) is a genuine Cast device: \"\(result.deviceName)\" (\(notes.joined(separator: "; ")))")
        case .failure(let error):
            state.authentication = .failed(error)
            let consequence = deviceAuth.policy == .require
                ? "commands to it are refused ([cast] authentication = require)"
                : "carrying on because [cast] authentication = warn"
            logger.warning("device authentication of \(address) failed: \(error.message); \(consequence)")
        }
    }

    /// Under `require`, a command to a receiver that has not passed device
    /// authentication fails with `notAuthenticated`.
    func requireAuthenticated() throws {
        guard deviceAuth.policy == .require, deviceAuth.authenticator != nil else { return }
        let reason: String
        switch state.authentication {
        case .authenticated: return
        case .failed(let error): reason = error.message
        case .pending: reason = "it is still in progress"
        case .off: reason = "it has not run"
        }
        throw CastError(.notAuthenticated,
                        "the receiver at \(configuration.address) failed device authentication (\(reason)); commands are refused because [cast] authentication = require")
    }
}
