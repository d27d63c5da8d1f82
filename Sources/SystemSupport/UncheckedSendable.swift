/// Carries a value that is not `Sendable` across a concurrency boundary when
/// the code guarantees, by construction, that it is used by one thread at a
/// time (e.g. Dispatch sources touched only from their own serial queue).
public struct UncheckedSendable<Value>: @unchecked Sendable {
    public var value: Value
    public init(_ value: Value) { self.value = value }
}
