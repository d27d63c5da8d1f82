/// One request as the media server sees it: the method, the raw target and
/// the few headers it acts on. Filled by the libmicrohttpd glue, or by tests.
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    /// The request target exactly as received (still percent-encoded).
    public var target: [UInt8]
    public var range: String?
    public var ifRange: String?
    public var ifMatch: String?
    public var ifNoneMatch: String?
    public var ifModifiedSince: String?

    public init(method: String, target: [UInt8], range: String? = nil, ifRange: String? = nil, ifMatch: String? = nil,
                ifNoneMatch: String? = nil, ifModifiedSince: String? = nil) {
        self.method = method
        self.target = target
        self.range = range
        self.ifRange = ifRange
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
    }

    public init(method: String, target: String, range: String? = nil, ifRange: String? = nil,
                ifNoneMatch: String? = nil, ifModifiedSince: String? = nil) {
        self.init(method: method, target: Array(target.utf8), range: range, ifRange: ifRange,
                  ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince)
    }
}

/// The answer to send. A file body is an open descriptor that the sender
/// owns from then on (libmicrohttpd closes it when done; `discard()` closes
/// it when the answer is dropped).
public struct HTTPResponse: Sendable {
    public enum Body: Sendable, Equatable {
        case empty
        case text(String)
        /// `length` bytes of `fd` from `offset`; sent with sendfile(2).
        case file(fd: Int32, offset: UInt64, length: UInt64)
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Body

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// What is known of a regular file: enough for validators and ranges.
public struct FileMetadata: Sendable, Equatable {
    public var size: UInt64
    public var modifiedSeconds: Int64
    public var modifiedNanoseconds: Int64
    public var inode: UInt64

    public init(size: UInt64, modifiedSeconds: Int64, modifiedNanoseconds: Int64 = 0, inode: UInt64 = 0) {
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.inode = inode
    }

    /// A strong validator: changes whenever the file is replaced or rewritten.
    public var entityTag: String {
        let nanos = modifiedSeconds &* 1_000_000_000 &+ modifiedNanoseconds
        return "\"\(String(inode, radix: 16))-\(String(size, radix: 16))-\(String(UInt64(bitPattern: nanos), radix: 16))\""
    }

    public var lastModified: String { HTTPDate.format(modifiedSeconds) }
}
