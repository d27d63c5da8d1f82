import CastProtocol
import JSON
import SystemSupport

/// Parse time of one large JSON object against an array of the same size:
/// a hostile receiver can send either in one frame, and both must parse in
/// linear time (issue 8 §5: the object took 116 ms, the array 2 ms).
enum JSONParseBench {
    /// `{"0":0,"1":0,...}` and `["0","1",...]`: the same strings, so the
    /// difference is the object's member handling.
    static func documents(members: Int) -> (object: [UInt8], array: [UInt8]) {
        let keys = (0..<members).map { "\"\($0)\"" }
        let object = "{" + keys.map { "\($0):0" }.joined(separator: ",") + "}"
        let array = "[" + keys.joined(separator: ",") + "]"
        return (Array(object.utf8), Array(array.utf8))
    }

    /// The median time of `runs` parses, in microseconds.
    static func medianMicroseconds(_ bytes: [UInt8], runs: Int) throws -> Double {
        var samples: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            let value = try JSONValue(parsing: bytes)
            let elapsed = ContinuousClock.now - start
            guard value != .null else { continue }  // keeps the parse from being optimized away
            samples.append(elapsed.seconds * 1e6)
        }
        samples.sort()
        return samples[samples.count / 2]
    }

    static func run(members: Int, runs: Int) throws {
        let (object, array) = documents(members: members)
        let objectMicroseconds = try medianMicroseconds(object, runs: runs)
        let arrayMicroseconds = try medianMicroseconds(array, runs: runs)
        StandardOutput.line("json members=\(members) object_bytes=\(object.count) array_bytes=\(array.count) runs=\(runs)"
            + " object_us=\(Int(objectMicroseconds.rounded())) array_us=\(Int(arrayMicroseconds.rounded()))")
    }
}
