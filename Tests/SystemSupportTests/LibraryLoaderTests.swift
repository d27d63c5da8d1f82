import CLibraryLoader
import SystemSupport
import XCTest

/// The loader every optional C library goes through (libcec, libmicrohttpd,
/// libmosquitto, avahi-client): a missing one is one message with the
/// soname, the reason and the package to install.
final class LibraryLoaderTests: XCTestCase {
    /// Loads `soname` resolving `symbol`; returns whether it loaded, the message and the symbol's address.
    private func load(_ soname: String, package: String, symbol: String) -> (loaded: Bool, message: String, address: UnsafeMutableRawPointer?) {
        var address: UnsafeMutableRawPointer?
        var text = [CChar](repeating: 0, count: 320)
        let loaded = soname.withCString { soname in
            package.withCString { package in
                symbol.withCString { name in
                    withUnsafeMutablePointer(to: &address) { slot in
                        var symbols = [cg_symbol(name: name, slot: slot)]
                        return symbols.withUnsafeMutableBufferPointer { table in
                            var library = cg_library()
                            library.soname = soname
                            library.package = package
                            library.symbols = UnsafePointer(table.baseAddress)
                            library.count = table.count
                            return cg_library_load(&library, &text, text.count)
                        }
                    }
                }
            }
        }
        return (loaded == 1, String(nullTerminated: text), address)
    }

    func testAMissingLibraryIsOneMessageWithTheReasonAndThePackage() {
        let result = load("libcast-gateway-missing.so.9", package: "libcast-gateway-missing9", symbol: "missing_open")
        XCTAssertFalse(result.loaded)
        XCTAssertEqual(result.message, "cannot load libcast-gateway-missing.so.9 (cannot open shared object file: No such file or directory): install libcast-gateway-missing9")
        XCTAssertNil(result.address)
    }

    func testALibraryWithoutASymbolIsRefusedNamingIt() {
        let result = load("libc.so.6", package: "libc6", symbol: "cast_gateway_no_such_function")
        XCTAssertFalse(result.loaded)
        XCTAssertEqual(result.message, "libc.so.6 has no cast_gateway_no_such_function: install the version of libc6 this build is for")
        XCTAssertNil(result.address)
    }

    func testAPresentLibraryFillsTheTable() {
        let result = load("libc.so.6", package: "libc6", symbol: "getpid")
        XCTAssertTrue(result.loaded, result.message)
        XCTAssertNotNil(result.address)
    }
}
