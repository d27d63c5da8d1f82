import CastProtocol
import SystemSupport

/// One device-auth challenge waiting for its answer.
struct DeviceAuthExchange {
    let continuation: CheckedContinuation<[UInt8], any Error>
    let timeoutTask: Task<Void, Never>
}

extension CastChannel {
    /// Sends a BINARY payload on the device-auth namespace from `sender-0` to
    /// `receiver-0` (no virtual connection is needed, as in Chromium) and
    /// waits for the receiver's BINARY answer, at most `timeout`.
    public func exchangeDeviceAuth(_ payload: [UInt8], timeout: Duration) async throws -> [UInt8] {
        if let closeReason { throw closeReason }
        guard deviceAuthExchange == nil else {
            throw CastError(.protocolError, "a device authentication is already in flight on this connection")
        }
        return try await withCheckedThrowingContinuation { continuation in
            // The challenge's timer: cancelled by the answer or close().
            let timeoutTask = Task { [timeSource] in
                try? await timeSource.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                self.finishDeviceAuthExchange(.failure(CastError(
                    .timeout, "the receiver did not answer the device-auth challenge within \(Int(timeout.seconds)) s")))
            }
            // Registered before it is written, so even an instant answer finds it.
            deviceAuthExchange = DeviceAuthExchange(continuation: continuation, timeoutTask: timeoutTask)
            do {
                try sendRaw(CastMessage(sourceID: CastEndpoint.platformSender, destinationID: CastEndpoint.platformReceiver,
                                        namespace: CastNamespace.deviceAuth, payload: .binary(payload)))
            } catch {
                finishDeviceAuthExchange(.failure(error))
            }
        }
    }

    /// A BINARY message arrived: the answer to the challenge in flight, or ignored.
    func receiveBinary(_ message: CastMessage) {
        guard message.namespace == CastNamespace.deviceAuth, case .binary(let payload) = message.payload,
              deviceAuthExchange != nil else {
            logger.debug("ignored a binary message on \(message.namespace)")
            return
        }
        finishDeviceAuthExchange(.success(payload))
    }

    func failDeviceAuthExchange(_ reason: CastError) {
        finishDeviceAuthExchange(.failure(CastError(.disconnected, "device authentication failed: \(reason.message)")))
    }

    private func finishDeviceAuthExchange(_ result: Result<[UInt8], any Error>) {
        guard let exchange = deviceAuthExchange else { return }
        deviceAuthExchange = nil
        exchange.timeoutTask.cancel()
        exchange.continuation.resume(with: result)
    }
}
