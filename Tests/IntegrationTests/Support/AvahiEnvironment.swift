import Foundation
import XCTest

/// A private D-Bus system bus and an avahi-daemon restricted to the loopback
/// interface, both started and stopped (by pid) by the test. Nothing touches
/// the machine's own bus or real network interfaces.
final class AvahiEnvironment {
    let directory: URL
    let busAddress: String
    private var bus: ManagedProcess?
    private(set) var avahi: ManagedProcess?

    /// The environment child processes need to use this bus.
    var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": busAddress] }

    init(test: XCTestCase) throws {
        directory = try temporaryDirectory(test)
        let socket = directory.appendingPathComponent("system_bus_socket").path
        busAddress = "unix:path=\(socket)"
        let busConfig = directory.appendingPathComponent("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>\(busAddress)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_type="method_call"/>
                <allow send_destination="*"/>
                <allow receive_sender="*"/>
              </policy>
            </busconfig>
            """.write(to: busConfig, atomically: true, encoding: .utf8)
        try """
            [server]
            use-ipv4=yes
            use-ipv6=no
            allow-interfaces=lo
            enable-dbus=yes
            ratelimit-interval-usec=0
            [publish]
            publish-hinfo=no
            publish-workstation=no
            [wide-area]
            enable-wide-area=no
            """.write(to: directory.appendingPathComponent("avahi-daemon.conf"), atomically: true, encoding: .utf8)
        bus = try ManagedProcess("/usr/bin/dbus-daemon", ["--nofork", "--nopidfile", "--config-file=\(busConfig.path)"])
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard FileManager.default.fileExists(atPath: socket) else {
            throw StartupError(message: "dbus-daemon did not start: \(bus?.allOutput ?? "")")
        }
        test.addTeardownBlock { [self] in stop() }
        try startAvahi()
    }

    /// Starts avahi-daemon (again) and waits until it serves.
    func startAvahi() throws {
        // A private mount namespace with its own /run/avahi-daemon, so the pid
        // file and socket never collide with a system avahi-daemon (or a stale
        // one), and a private network namespace whose loopback carries only
        // this test's mDNS: another avahi on the host's lo (a bench, a system
        // daemon) cannot add services. D-Bus is a socket path, so it reaches
        // across, and the services still resolve to 127.0.0.1 on the host.
        try FileManager.default.createDirectory(atPath: "/run/avahi-daemon", withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("avahi-daemon.conf").path
        let daemon = try ManagedProcess("/usr/bin/unshare", [
            "--mount", "--net", "--propagation", "private", "--", "/bin/sh", "-c",
            "ip link set lo up && mount -t tmpfs cast-gateway-test /run/avahi-daemon && exec /usr/sbin/avahi-daemon --no-drop-root --no-chroot --no-rlimits -f '\(config)'",
        ], environment: environment)
        avahi = daemon
        guard daemon.waitForLine(containing: "Server startup complete", timeout: 15) != nil else {
            throw StartupError(message: "avahi-daemon did not start: \(daemon.allOutput)")
        }
    }

    func stopAvahi(signal: Int32 = SIGTERM) {
        avahi?.stop(signal: signal)
    }

    func stop() {
        avahi?.stop()
        bus?.stop()
    }
}
