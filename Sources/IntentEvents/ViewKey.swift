/// A second key per writer, for readers whose view may be wrong without moving money:
/// the app state, which only shows what it reads, and the confirm stage's ledger and
/// accounts, which only pre-check what the payments stage decides again. A writer the
/// app state shows (the four stages, the ledger operator, the contacts and the settings
/// services) signs each record those readers read (responses, the ledger, messages:
/// ``Destination/isViewed``; accounts, contacts, users' settings) twice: with its key
/// (``EventSignature/header``), which every reader that acts on the record checks,
/// and with its view key (``EventSignature/viewHeader``), which only those readers
/// check (``RecordTrust/view``). So the web-facing app state, and the confirm stage,
/// hold view keys and no key that the payments stage trusts: a compromised one can
/// make its own view lie, and move no money (SECURITY.md, attack 39).
///
/// A view key is listed in the writer's key file under the writer's source with the
/// ``prefix`` (`/views/workers/payments KEYID HEXKEY`); ``EventAuthenticator`` keeps
/// such keys apart and never verifies with them.
public enum ViewKey {
    /// The prefix of a view key's source.
    public static let prefix = "/views"

    /// The view key's source name for `source` (`/workers/payments` -> `/views/workers/payments`).
    public static func source(viewing source: String) -> String { prefix + source }

    /// The source a view key signs for, or nil when `keySource` is not a view key's.
    public static func viewedSource(of keySource: String) -> String? {
        guard keySource.hasPrefix(prefix + "/") else { return nil }
        return String(keySource.dropFirst(prefix.count))
    }

    /// Whether a view reader (the app state, the confirm stage's ledger) reads what `source`
    /// writes, so its keys come with a view key: the four stages (the resolve stage for the
    /// final responses of the requests it refuses), the ledger operator, the contacts services
    /// (the names on the page) and the settings services (the language the page is in).
    public static func isShown(_ source: String) -> Bool {
        [
            PipelineSource.resolve, PipelineSource.confirm, PipelineSource.payments, PipelineSource.handle,
            PipelineSource.ledgerOperator,
        ].contains(source) || source.hasPrefix(PipelineSource.contactsPrefix)
            || source.hasPrefix(PipelineSource.settingsPrefix)
    }
}
