import Configuration
import WebInterface
import XCTest

/// The config as the browser sees it (secrets as ********) and back.
final class ConfigRedactionTests: XCTestCase {
    private let original = """
        [cast]
        app-id = CC1AD845
        launch-credentials = "s3cret launch # not a comment"

        [mqtt]
        host = broker.lan
        password = hunter2 # the broker's
        # old password = swordfish

        [media]
        password = other-one

        """

    func testEverySecretValueIsMaskedAndNothingElse() {
        let shown = ConfigRedaction.redact(original)
        for secret in ["s3cret", "hunter2", "swordfish", "other-one", "the broker's"] {
            XCTAssertFalse(shown.contains(secret), secret)
        }
        XCTAssertEqual(shown, """
            [cast]
            app-id = CC1AD845
            launch-credentials = ********

            [mqtt]
            host = broker.lan
            password = ********
            # ********

            [media]
            password = ********

            """)
    }

    func testUnchangedMasksKeepTheOldValuesInTheirOwnSections() throws {
        var edited = ConfigRedaction.redact(original)
        edited = edited.replacingOccurrences(of: "host = broker.lan", with: "host = broker2.lan")
        let restored = try ConfigRedaction.restore(edited, original: original, path: "/etc/g.conf")
        XCTAssertEqual(restored, original.replacingOccurrences(of: "host = broker.lan", with: "host = broker2.lan"))
    }

    func testAMaskedKeyRewrittenOrMovedTakesTheOldValueOfThatKeyInThatSection() throws {
        let edited = """
            [media]
            password=********
            [mqtt]
            password    =   ********
            """
        let restored = try ConfigRedaction.restore(edited, original: original, path: "/etc/g.conf")
        XCTAssertEqual(restored, """
            [media]
            password= other-one
            [mqtt]
            password    = hunter2 # the broker's
            """)
    }

    func testANewValueReplacesTheSecret() throws {
        let edited = ConfigRedaction.redact(original).replacingOccurrences(of: "[mqtt]\nhost = broker.lan\npassword = ********",
                                                                            with: "[mqtt]\nhost = broker.lan\npassword = new-one")
        let restored = try ConfigRedaction.restore(edited, original: original, path: "/etc/g.conf")
        XCTAssertTrue(restored.contains("password = new-one"))
        XCTAssertFalse(restored.contains("hunter2"))
        XCTAssertTrue(restored.contains("password = other-one"), "the other section's secret stays")
    }

    func testAMaskThatStandsForNothingIsAnErrorAtItsLine() {
        let edited = "[cast]\napp-id = CC1AD845\n\n[mqtt]\ntoken = ********\n"
        XCTAssertThrowsError(try ConfigRedaction.restore(edited, original: original, path: "/etc/g.conf")) { error in
            let error = error as? ConfigError
            XCTAssertEqual(error?.file, "/etc/g.conf")
            XCTAssertEqual(error?.line, 5)
            XCTAssertTrue(error?.message.contains("type the value") ?? false)
        }
    }
}
