/// The `source` of every event the pipeline itself produces. Consumers check
/// an event's source against these (``Producers``) before they act on it, so
/// the rule "only the confirm stage proposes payments" is code, not a broker ACL.
public enum PipelineSource {
    public static let resolve = "/workers/resolve"
    public static let confirm = "/workers/confirm"
    public static let payments = "/workers/payments"
    public static let handle = "/workers/handle"
    /// Operators' tools that open accounts and deposit money (`intentctl ledger`).
    public static let ledgerOperator = "/operators/ledger"

    /// Sources reserved for the pipeline's stages and operators; no voice service may use one.
    public static func isInternal(_ source: String) -> Bool {
        source.hasPrefix("/workers/") || source.hasPrefix("/operators/")
    }

    /// Voice services: any source that is not the pipeline's own, a contacts service or a settings service.
    public static let voice = Producers("a voice service") {
        !isInternal($0) && !$0.hasPrefix(contactsPrefix) && !$0.hasPrefix(settingsPrefix)
    }

    /// Contact sync services (`/contacts/...`), with keys among the voice services'
    /// (`--source-keys`): the only writers of the contacts topic.
    public static let contactsPrefix = "/contacts/"
    public static let contacts = Producers("a contacts service (/contacts/...)") { $0.hasPrefix(contactsPrefix) }

    /// The app's settings services (`/settings/...`), with keys among the voice services'
    /// (`--source-keys`): the only writers of the users' settings topic.
    public static let settingsPrefix = "/settings/"
    public static let settings = Producers("a settings service (/settings/...)") { $0.hasPrefix(settingsPrefix) }
}

extension PipelineSource {
    /// Every source that signs with a stage key: the four stages and the ledger operator.
    public static let all = [resolve, confirm, payments, handle, ledgerOperator]
}
