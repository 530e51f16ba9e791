import Localization
import Testing

/// iOS gives `Locale.current.identifier` as `en_US`; the pipeline carries BCP 47 tags
/// (`en-US`), so an app's identifier is taken and written as the tag (issue 31, point 4).
@Suite("Locale identifiers as BCP 47 tags")
struct LocaleIdentifierTests {
    @Test(
        "identifiers with underscores and keywords become tags",
        arguments: [
            ("en_US", "en-US"), ("zh_Hans_CN", "zh-Hans-CN"), ("ru_RU@calendar=gregorian", "ru-RU"),
            ("ru-RU", "ru-RU"), ("en", "en"),
        ])
    func identifiers(_ identifier: String, _ tag: String) {
        #expect(UserLocale.tag(fromIdentifier: identifier) == tag)
    }

    @Test("what is no locale either way is refused", arguments: ["", "e", "en US", "en__US", "english_united_states1"])
    func refused(_ identifier: String) {
        #expect(UserLocale.tag(fromIdentifier: identifier) == nil)
    }
}
