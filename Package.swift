// swift-tools-version:6.0
//
// cast-gateway: a TV-remote-to-Cast appliance daemon.
// Module dependencies point one way (see README, "Architecture", and
// docs/architecture.md):
//   JSON <- CastProtocol <- CastClient <- GatewayCore <- Kiosk, Daemon <- executables
//   SystemSupport (OS, descriptors, logging, time) <- everything with I/O
//   Configuration (the config format, typed sections) <- every module with settings
//   ServiceLifecycle (Service, ServiceGroup, ReopeningSource) <- every long-running part
//   JSON <- GatewayModel (actions, state, input events) <- Commands <- RemoteInput, StatusOutput, Interpreter
//   GatewayCore, Commands <- Interpreter (carries out commands against the gateway) <- Daemon
//   Fleet (MQTT), MediaServer (HTTP), Discovery (mDNS): no Cast; TLS knows no Cast, CastClient no TLS
//   WebInterface (the browser interface; Commands, GatewayModel; MediaServer's ListenAddress; TLS's certificates) <- Daemon
//   Daemon ties them together
// C modules, one per library; a Swift module depends only on those it calls:
//   COpenSSL (libssl, libcrypto; macro wrappers static inline) <- TLS, DeviceAuth
//   CGPIOD <- CGPIODShim (libgpiod 1.x and 2.x)                 <- StatusOutput
// The optional libraries are dlopen'ed when their part first runs, through
// one loader (CLibraryLoader); the executables do not link them:
//   CCecLoader (libcec)                                         <- RemoteInput
//   CMicroHTTPD <- CMicroHTTPDShim (variadic calls, the logger) <- MediaServer, WebInterface
//   CMosquitto <- CMosquittoShim <- Fleet;  CAvahi <- CAvahiShim <- Discovery
//   CCurl (static inline wrappers) <- CurlMediaProbe (the simulator's tool only)
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
        // MARK: C libraries, each with its own shim
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // Headers only: the library is loaded at run time (CAvahiShim), so
        // neither pkg-config (whose -D_REENTRANT makes SwiftPM warn) nor a link.
        .systemLibrary(
            name: "CAvahi",
            providers: [.apt(["libavahi-client-dev"])]
        ),
        .systemLibrary(
            name: "CGPIOD",
            pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]
        ),
        // Headers only, as CAvahi (CMosquittoShim loads it).
        .systemLibrary(
            name: "CMosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // Headers only, as CAvahi (CMicroHTTPDShim loads it).
        .systemLibrary(
            name: "CMicroHTTPD",
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
        // One small C target beside each library whose API Swift cannot call
        // directly (variadic functions, shared state); OpenSSL's macro wrappers
        // are static inline in COpenSSL/shim.h. Each links only its library.
        // libcec, libmicrohttpd, libmosquitto and avahi-client are loaded with
        // dlopen when their part first runs, so each stays optional.
        .target(name: "CLibraryLoader"),  // dlopen is in libc (glibc 2.34 and later: bookworm, trixie)
        .target(name: "CCecLoader", dependencies: ["CLibraryLoader"]),
        .target(name: "CGPIODShim", dependencies: ["CGPIOD"]),
        .target(name: "CMicroHTTPDShim", dependencies: ["CMicroHTTPD", "CLibraryLoader"]),
        .target(name: "CMosquittoShim", dependencies: ["CMosquitto", "CLibraryLoader"]),
        .target(name: "CAvahiShim", dependencies: ["CAvahi", "CLibraryLoader"]),

        // MARK: Pure values and platform support
        .target(name: "JSON"),
        .target(name: "CastProtocol", dependencies: ["JSON"]),
        .target(name: "SystemSupport"),
        .target(name: "Configuration", dependencies: ["SystemSupport"]),
        .target(name: "ServiceLifecycle", dependencies: ["SystemSupport"]),
        .target(name: "GatewayModel", dependencies: ["JSON"]),
        // The command language every front end parses into, its typed results, and the action scheduler (no Cast, no I/O).
        .target(name: "Commands", dependencies: ["GatewayModel", "SystemSupport"]),

        // MARK: I/O
        .target(name: "TLS", dependencies: ["COpenSSL", "SystemSupport"]),
        .target(name: "CastClient", dependencies: ["JSON", "CastProtocol", "SystemSupport"]),
        .target(name: "DeviceAuth", dependencies: ["COpenSSL", "CastProtocol", "SystemSupport"]),
        .target(name: "Discovery", dependencies: ["CAvahi", "CAvahiShim", "GatewayModel", "SystemSupport", "Configuration", "ServiceLifecycle"]),
        .target(name: "RemoteInput", dependencies: ["Commands", "CCecLoader", "GatewayModel", "SystemSupport", "Configuration", "ServiceLifecycle"]),
        .target(name: "StatusOutput", dependencies: ["Commands", "JSON", "CGPIODShim", "GatewayModel", "SystemSupport", "Configuration", "ServiceLifecycle"]),
        .target(name: "Fleet", dependencies: ["JSON", "CMosquitto", "CMosquittoShim", "GatewayModel", "SystemSupport", "Configuration", "ServiceLifecycle"]),
        .target(name: "MediaServer", dependencies: ["CMicroHTTPD", "CMicroHTTPDShim", "SystemSupport", "Configuration", "ServiceLifecycle"]),
        // The browser interface: its own libmicrohttpd daemon (ListenAddress from MediaServer), OpenSSL for the password hash and tokens.
        .target(
            name: "WebInterface",
            dependencies: ["CMicroHTTPD", "CMicroHTTPDShim", "COpenSSL", "Commands", "GatewayModel", "JSON", "MediaServer", "SystemSupport",
                           "Configuration", "ServiceLifecycle", "TLS"]
        ),

        // MARK: Core and tools
        .target(
            name: "GatewayCore",
            dependencies: ["JSON", "CastClient", "CastProtocol", "GatewayModel", "SystemSupport", "Configuration", "ServiceLifecycle"]
        ),
        .target(
            name: "Interpreter",
            dependencies: ["Commands", "GatewayCore", "GatewayModel", "CastClient", "CastProtocol", "SystemSupport"]
        ),
        .target(
            name: "Kiosk",
            dependencies: ["JSON", "CastClient", "GatewayCore", "GatewayModel", "SystemSupport", "Configuration", "ServiceLifecycle"]
        ),
        .target(
            name: "Daemon",
            dependencies: ["Interpreter", "Commands", "CastClient", "Discovery", "Fleet", "MediaServer", "GatewayCore", "GatewayModel", "Kiosk", "RemoteInput", "StatusOutput",
                           "SystemSupport", "Configuration", "ServiceLifecycle", "WebInterface"]
        ),
        .target(
            name: "ReceiverSimulator",
            dependencies: ["JSON", "CastProtocol", "SystemSupport"]
        ),
        .target(name: "CurlMediaProbe", dependencies: ["CCurl", "ReceiverSimulator", "SystemSupport"]),
        .executableTarget(
            name: "cast-gateway",
            dependencies: ["Interpreter", "Commands", "Daemon", "GatewayCore", "GatewayModel", "CastClient", "CastProtocol", "DeviceAuth", "Discovery", "Kiosk",
                           "RemoteInput", "StatusOutput", "TLS", "ReceiverSimulator", "SystemSupport", "ServiceLifecycle", "WebInterface"],
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
            dependencies: ["Interpreter", "Commands", "JSON", "Daemon", "GatewayCore", "GatewayModel", "CastClient", "CastProtocol", "Fleet", "MediaServer", "RemoteInput", "TLS", "SystemSupport"],
            path: "bench/Sources"
        ),

        // MARK: Tests
        .target(
            name: "TestSupport",
            dependencies: ["CastClient", "CastProtocol", "SystemSupport", "ServiceLifecycle"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "KioskTests",
            dependencies: ["JSON", "Kiosk", "GatewayCore", "GatewayModel", "CastClient", "CastProtocol", "ReceiverSimulator", "StatusOutput",
                           "SystemSupport", "TestSupport", "Configuration"]
        ),
        .testTarget(name: "CommandsTests", dependencies: ["Commands", "GatewayModel", "SystemSupport", "TestSupport"]),
        .testTarget(name: "CastProtocolTests", dependencies: ["JSON", "CastProtocol", "TestSupport"]),
        .testTarget(name: "SystemSupportTests", dependencies: ["SystemSupport", "TestSupport", "ServiceLifecycle", "CLibraryLoader"]),
        .testTarget(
            name: "DaemonTests",
            dependencies: ["Interpreter", "Commands", "JSON", "Daemon", "Discovery", "Fleet", "GatewayCore", "GatewayModel", "CastClient", "CastProtocol", "Kiosk", "ReceiverSimulator",
                           "RemoteInput", "StatusOutput", "SystemSupport", "TestSupport", "Configuration", "ServiceLifecycle"]
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
            dependencies: ["Interpreter", "Commands", "JSON", "GatewayCore", "GatewayModel", "CastClient", "CastProtocol", "ReceiverSimulator", "SystemSupport",
                           "TestSupport"]
        ),
        .testTarget(
            name: "FleetTests",
            dependencies: ["JSON", "Fleet", "CastProtocol", "GatewayModel", "SystemSupport", "TestSupport", "Configuration"]
        ),
        .testTarget(
            name: "MediaServerTests",
            dependencies: ["JSON", "MediaServer", "ReceiverSimulator", "CurlMediaProbe", "CastProtocol", "SystemSupport", "TestSupport", "Configuration"]
        ),
        .testTarget(
            name: "WebInterfaceTests",
            dependencies: ["WebInterface", "Commands", "GatewayModel", "JSON", "SystemSupport", "TestSupport", "Configuration", "TLS"]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["JSON", "CastProtocol", "SystemSupport", "TestSupport", "CastClient", "DeviceAuth", "TLS"],
            exclude: ["pychromecast"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
