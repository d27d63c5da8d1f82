// libFuzzer entry for the media server's request-target validator: whatever
// a client on the LAN puts in a request line. Built with
// Sources/MediaServer/MediaRequestPath.swift alone by Fuzz/run-media-path.sh; any crash,
// hang, sanitizer report or broken invariant (fatalError) is a bug.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMediaPath(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let rootCount = Int(first % 4) + 1
    let target = Array(bytes.dropFirst())
    guard case .success(let path) = MediaRequestPath.parse(target, rootCount: rootCount) else { return 0 }

    // What was accepted can name nothing outside a root.
    guard path.rootIndex >= 0, path.rootIndex < rootCount, !path.components.isEmpty else {
        fatalError("accepted a path without a root or a file: \(path)")
    }
    for component in path.components {
        let raw = Array(component.utf8)
        if raw.isEmpty || component == "." || component == ".." || raw.first == UInt8(ascii: ".")
            || raw.contains(0) || raw.contains(UInt8(ascii: "/")) || raw.contains(UInt8(ascii: "\\"))
            || raw.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            fatalError("accepted a dangerous component: \(raw)")
        }
        if !MediaRequestPath.isServableComponent(component) { fatalError("accepted a component it would not serve") }
    }
    // The URL the server would build for it names the same file.
    guard case .success(let again) = MediaRequestPath.parse(path.target, rootCount: rootCount), again == path else {
        fatalError("target did not round-trip: \(path.target)")
    }
    return 0
}
