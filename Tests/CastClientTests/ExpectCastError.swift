import CastClient
import XCTest

/// Runs `body`, which must fail with a `CastError` of `code`; returns the
/// error for further checks (nil, with a test failure, otherwise).
func expectCastError(_ code: CastError.Code, file: StaticString = #filePath, line: UInt = #line,
                            _ body: () async throws -> Void) async -> CastError? {
    do {
        try await body()
        XCTFail("expected a CastError \(code.rawValue), but it succeeded", file: file, line: line)
    } catch let error as CastError {
        XCTAssertEqual(error.code, code, error.message, file: file, line: line)
        return error
    } catch {
        XCTFail("expected a CastError \(code.rawValue), got \(error)", file: file, line: line)
    }
    return nil
}
