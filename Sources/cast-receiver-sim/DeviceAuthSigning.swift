import DeviceAuth
import ReceiverSimulator

/// The simulator signs device-auth answers with DeviceAuth's credentials.
extension DeviceCredentials: DeviceAuthSigning {}
