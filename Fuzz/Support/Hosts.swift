#if canImport(Glibc)
import Glibc
#endif

/// What a validated host must look like (issue 8 §6): no control characters,
/// quotes or spaces, and a host with a colon is a well-formed IPv6 literal
/// (optionally with a %zone).
enum Hosts {
    static func requireValid(_ host: String, _ what: String) {
        Fuzz.requirePlainLine(host, what)
        Fuzz.require(!host.contains(where: { $0 == "\"" || $0 == "'" || $0 == " " }), "\(what) has no quotes or spaces: \(Fuzz.quote(host))")
        guard host.contains(":") else { return }
        let address = host.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? host
        var buffer = in6_addr()
        Fuzz.require(inet_pton(AF_INET6, address, &buffer) == 1, "\(what) with a colon is a valid IPv6 address: \(Fuzz.quote(host))")
    }
}
