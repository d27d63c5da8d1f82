// swift-tools-version:6.0
//
// cast-gateway: a TV-remote-to-Cast appliance daemon.
// Module dependencies point one way (see README, "Architecture"):
//   CastProtocol  <- CastClient <- GatewayCore <- executables
//   SystemSupport <- TLS, CastClient, GatewayCore
//   GatewayModel  <- GatewayCore (and later the input/output modules)
//   CMosquitto, CastProtocol, GatewayModel, SystemSupport <- Fleet (MQTT; no Cast sessions)
import PackageDescription

/// `swift build -c release` links the Swift runtime statically into the
/// shipped executables, as `--static-swift-stdlib` does.
let staticSwiftRuntimeInRelease: [LinkerSetting] = [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]

let package = Package(
    name: "cast-gateway",
    products: [
        .executable(name: "cast-gateway", targets: ["cast-gateway"]),
        .executable(name: "cast-receiver-sim", targets: ["cast-receiver-sim"]),
        .executable(name: "cast-gateway-bench", targets: ["cast-gateway-bench"]),
    ],
    targets: [
        // MARK: C libraries and the one shim for macros / version differences
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // Not through pkg-config: its -D_REENTRANT cflag makes SwiftPM warn on
        // every build. The module map names the libraries.
        .systemLibrary(
            name: "CAvahi",
            providers: [.apt(["libavahi-client-dev"])]
        ),
        .systemLibrary(
            name: "CGPIOD",
            pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]
        ),
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // Only the simulator's media fetcher uses libcurl; its variadic
        // curl_easy_setopt wrappers are static inline in CCurl/shim.h, so the
        // cast-gateway executable (which embeds the simulator) never links it.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "CShims",
            dependencies: ["COpenSSL", "CGPIOD", "CMicroHTTPD"]
        ),

        // MARK: Pure values and platform support
        .target(name: "CastProtocol"),
        .target(name: "SystemSupport"),
        .target(name: "GatewayModel"),
        // The command language every front end parses into, its typed results, and the action scheduler (no Cast, no I/O).
        .target(name: "Commands", dependencies: ["GatewayModel", "SystemSupport"]),

        // MARK: I/O
        .target(name: "TLS", dependencies: ["COpenSSL", "CShims", "SystemSupport"]),
        .target(name: "CastClient", dependencies: ["CastProtocol", "SystemSupport"]),
        .target(name: "DeviceAuth", dependencies: ["COpenSSL", "CShims", "CastProtocol", "SystemSupport"]),
        .target(name: "Discovery", dependencies: ["CAvahi", "GatewayModel", "SystemSupport"]),
        .target(name: "RemoteInput", dependencies: ["CShims", "Commands", "GatewayModel", "SystemSupport"]),
        .target(name: "StatusOutput", dependencies: ["CastProtocol", "CShims", "Commands", "GatewayModel", "SystemSupport"]),
        .target(name: "Fleet", dependencies: ["CMosquitto", "CastProtocol", "GatewayModel", "SystemSupport"]),
        .target(name: "MediaServer", dependencies: ["CMicroHTTPD", "CShims", "SystemSupport"]),

        // MARK: Core and tools
        .target(
            name: "GatewayCore",
            dependencies: ["CastClient", "CastProtocol", "Commands", "GatewayModel", "SystemSupport"]
        ),
        .target(
            name: "Kiosk",
            dependencies: ["CastClient", "CastProtocol", "GatewayCore", "GatewayModel", "SystemSupport"]
        ),
        .target(
            name: "Daemon",
            dependencies: ["CastClient", "Commands", "Discovery", "Fleet", "MediaServer", "GatewayCore", "GatewayModel", "Kiosk", "RemoteInput", "StatusOutput",
                           "SystemSupport"]
        ),
        .target(
            name: "ReceiverSimulator",
            dependencies: ["CastProtocol", "SystemSupport"]
        ),
        .target(name: "CurlMediaProbe", dependencies: ["CCurl", "ReceiverSimulator", "SystemSupport"]),
        .executableTarget(
            name: "cast-gateway",
            dependencies: ["Daemon", "Commands", "GatewayCore", "GatewayModel", "CastClient", "CastProtocol", "DeviceAuth", "Discovery", "Kiosk",
                           "RemoteInput", "StatusOutput", "TLS", "ReceiverSimulator", "SystemSupport"],
            // Release builds carry the Swift runtime inside (the board has no Swift installed).
            linkerSettings: staticSwiftRuntimeInRelease
        ),
        .executableTarget(
            name: "cast-receiver-sim",
            dependencies: ["ReceiverSimulator", "CurlMediaProbe", "DeviceAuth", "Discovery", "TLS", "SystemSupport"],
            linkerSettings: staticSwiftRuntimeInRelease
        ),

        .executableTarget(
            name: "cast-gateway-bench",
            dependencies: ["Daemon", "Commands", "GatewayCore", "GatewayModel", "CastClient", "CastProtocol", "Fleet", "MediaServer", "RemoteInput", "TLS",
                           "SystemSupport"],
            path: "bench/Sources"
        ),

        // MARK: Tests
        .target(
            name: "TestSupport",
            dependencies: ["CastClient", "CastProtocol", "SystemSupport"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "KioskTests",
            dependencies: ["Kiosk", "GatewayCore", "GatewayModel", "CastClient", "CastProtocol", "ReceiverSimulator", "StatusOutput",
                           "SystemSupport", "TestSupport"]
        ),
        .testTarget(name: "CommandsTests", dependencies: ["Commands", "GatewayModel", "SystemSupport", "TestSupport"]),
        .testTarget(name: "CastProtocolTests", dependencies: ["CastProtocol", "TestSupport"]),
        .testTarget(name: "SystemSupportTests", dependencies: ["SystemSupport", "TestSupport"]),
        .testTarget(
            name: "DaemonTests",
            dependencies: ["Daemon", "Commands", "Discovery", "Fleet", "GatewayCore", "GatewayModel", "CastClient", "CastProtocol", "Kiosk", "ReceiverSimulator",
                           "RemoteInput", "StatusOutput", "SystemSupport", "TestSupport"]
        ),
        .testTarget(
            name: "DeviceAuthTests",
            dependencies: ["DeviceAuth", "CastProtocol", "SystemSupport", "TestSupport"]
        ),
        .testTarget(name: "DiscoveryTests", dependencies: ["Discovery", "GatewayModel", "SystemSupport", "TestSupport"]),
        .testTarget(name: "RemoteInputTests", dependencies: ["RemoteInput", "Commands", "GatewayModel", "TestSupport"]),
        .testTarget(name: "StatusOutputTests", dependencies: ["StatusOutput", "Commands", "GatewayModel", "SystemSupport", "TestSupport"]),
        .testTarget(
            name: "CastClientTests",
            dependencies: ["CastClient", "CastProtocol", "SystemSupport", "TestSupport", "TLS", "ReceiverSimulator"]
        ),
        .testTarget(
            name: "GatewayCoreTests",
            dependencies: ["GatewayCore", "Commands", "GatewayModel", "CastClient", "CastProtocol", "ReceiverSimulator", "SystemSupport",
                           "TestSupport"]
        ),
        .testTarget(
            name: "FleetTests",
            dependencies: ["Fleet", "CastProtocol", "GatewayModel", "SystemSupport", "TestSupport"]
        ),
        .testTarget(
            name: "MediaServerTests",
            dependencies: ["MediaServer", "ReceiverSimulator", "CurlMediaProbe", "CastProtocol", "SystemSupport", "TestSupport"]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["CastProtocol", "SystemSupport", "TestSupport", "CastClient", "DeviceAuth", "TLS"],
            exclude: ["pychromecast"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
