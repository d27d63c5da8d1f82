/// The release version, shown by `--version` and sent as the sender's version.
let gatewayVersion = "0.1.0"
