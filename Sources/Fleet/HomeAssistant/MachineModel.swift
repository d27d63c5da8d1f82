import Configuration
import SystemSupport

/// The machine's own model, for the Home Assistant device when no board
/// profile names it: the device tree's (`Raspberry Pi 4 Model B Rev 1.4`),
/// else DMI's vendor and product, else the architecture.
public enum MachineModel {
    public static func current(root: String = "") -> (model: String, version: String?) {
        if let model = read(root + "/proc/device-tree/model") { return (model, nil) }
        let vendor = read(root + "/sys/class/dmi/id/sys_vendor"), product = read(root + "/sys/class/dmi/id/product_name")
        let version = read(root + "/sys/class/dmi/id/product_version")
        if let product {
            let model = vendor.map { product.hasPrefix($0) ? product : "\($0) \(product)" } ?? product
            return (model, version)
        }
        #if arch(arm64)
        return ("Linux arm64", nil)
        #else
        return ("Linux x86_64", nil)
        #endif
    }

    /// The first line, without NULs (device-tree strings end in one) and
    /// firmware placeholders; nil when missing or empty.
    private static func read(_ path: String) -> String? {
        guard let text = try? FileSystem.readText(path) else { return nil }
        let line = String(text.split(whereSeparator: { $0 == "\n" || $0 == "\0" }).first ?? "").trimmingSpaces()
        let placeholders = ["", "To be filled by O.E.M.", "Default string", "System Product Name", "None", "Not Specified"]
        return placeholders.contains(line) ? nil : String(line.prefix(64))
    }
}
