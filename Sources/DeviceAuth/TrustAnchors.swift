#if canImport(Glibc)
import Glibc
#endif
import CastProtocol
import SystemSupport

/// The certificates device authentication trusts: Cast root CAs for device
/// chains, and (optionally) Cast CRL root CAs for revocation lists.
///
/// Loaded from a directory (`[cast] trust-anchors = DIR`): every `*.pem` or
/// `*.crt` file in DIR is read for device roots, every one in `DIR/crl/` for
/// CRL roots. A file may hold several certificates. Any certificate placed
/// there is an anchor, self-signed or not (as in Chromium's trust store).
public struct TrustAnchors: Sendable {
    public let deviceRoots: [X509Certificate]
    public let crlRoots: [X509Certificate]
    /// Where they came from, for messages.
    public let source: String

    public init(deviceRoots: [X509Certificate], crlRoots: [X509Certificate] = [], source: String) {
        self.deviceRoots = deviceRoots
        self.crlRoots = crlRoots
        self.source = source
    }

    /// Loads `directory`. A missing or unreadable directory, an unreadable
    /// file or one without a certificate is an error naming the file; an
    /// empty directory is not (verification then fails with `noTrustAnchors`).
    public static func load(directory: String) throws(DeviceAuthError) -> TrustAnchors {
        let device = try certificates(in: directory, required: true)
        let crl = try certificates(in: directory + "/crl", required: false)
        return TrustAnchors(deviceRoots: device, crlRoots: crl, source: directory)
    }

    private static func certificates(in directory: String, required: Bool) throws(DeviceAuthError) -> [X509Certificate] {
        guard let handle = opendir(directory) else {
            let error = SystemError.current(directory)
            if !required, error.isNotFound { return [] }
            throw DeviceAuthError(.noTrustAnchors, "cannot read the trust-anchor directory: \(error); check [cast] trust-anchors")
        }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".pem") || name.hasSuffix(".crt") { names.append(name) }
        }
        closedir(handle)
        var result: [X509Certificate] = []
        for name in names.sorted() {
            let path = directory + "/" + name
            let found: [X509Certificate]
            do {
                found = try X509Certificate.certificates(pem: try FileSystem.readText(path))
            } catch {
                throw DeviceAuthError(.noTrustAnchors, "cannot read trust anchor \(path): \(error)")
            }
            guard !found.isEmpty else {
                throw DeviceAuthError(.noTrustAnchors,
                                      "\(path) holds no PEM certificate (\"-----BEGIN CERTIFICATE-----\"); convert it or remove it")
            }
            result += found
        }
        return result
    }
}
