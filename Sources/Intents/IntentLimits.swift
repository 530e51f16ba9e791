public import IntentEvents

/// The sizes `schemas/intent/common.v1.json` allows, checked on a decoded intent.
///
/// JSON puts no bound on a string or a list, and the decoders read any (within the record's
/// size), so a voice service's request is held to the schema here before any stage works on
/// it. Not a formality: the contact resolver's work grows with the square of a spoken name's
/// words (a 15 KB name took a gigabyte, and the resolve worker crashed on it again after
/// every restart), and a prompt grows with the people it lists, past what one record may
/// hold. A request within these bounds is one the stages answer within a record.
extension Intent {
    /// Lengths count Unicode scalars, as JSON Schema's `maxLength` counts code points.
    public enum Limits {
        public static let people = 32
        public static let personField = 256
        public static let content = 4096
        public static let groupName = 256
        public static let serviceName = 64
        public static let keywords = 32
        public static let keyword = 256
        public static let attributes = 4
        public static let messageIDs = 256
        public static let messageID = 4096
        public static let note = 1024
        public static let paymentRequestID = 256
    }

    /// Refuses (`schema_invalid`, naming the field) an intent with a string or a list longer
    /// than its schema allows.
    public func checkLimits() throws(EventDecodingError) {
        let path = "$.data.intent"  // a literal: no allocation
        switch self {
        case .sendMessage(let intent):
            try Self.check(people: intent.recipients, at: "\(path).recipients")
            try SchemaBounds.check(intent.content, Limits.content, at: "\(path).content")
            try SchemaBounds.check(intent.groupName, Limits.groupName, at: "\(path).groupName")
            try SchemaBounds.check(intent.serviceName, Limits.serviceName, at: "\(path).serviceName")
        case .searchForMessages(let search):
            try Self.check(people: search.senders ?? [], at: "\(path).senders")
            try Self.check(people: search.recipients ?? [], at: "\(path).recipients")
            try SchemaBounds.check(
                search.keywords, count: Limits.keywords, length: Limits.keyword, at: "\(path).keywords")
            try SchemaBounds.check(count: search.attributes?.count ?? 0, Limits.attributes, at: "\(path).attributes")
        case .setMessageAttribute(let change):
            try SchemaBounds.check(
                change.messageIDs, count: Limits.messageIDs, length: Limits.messageID, at: "\(path).messageIDs")
        case .sendPayment(let payment):
            try Self.check(payment.payee, at: "\(path).payee")
            try SchemaBounds.check(payment.note, Limits.note, at: "\(path).note")
            try SchemaBounds.check(payment.paymentRequestID, Limits.paymentRequestID, at: "\(path).paymentRequestID")
        case .requestPayment(let request):
            try Self.check(request.payer, at: "\(path).payer")
            try SchemaBounds.check(request.note, Limits.note, at: "\(path).note")
        }
    }

    private static func check(people: [Person], at path: @autoclosure () -> String) throws(EventDecodingError) {
        try SchemaBounds.check(count: people.count, Limits.people, at: path())
        for (index, person) in people.enumerated() { try check(person, at: "\(path())[\(index)]") }
    }

    private static func check(_ person: Person?, at path: @autoclosure () -> String) throws(EventDecodingError) {
        guard let person else { return }
        try SchemaBounds.check(person.spoken, Limits.personField, at: "\(path()).spoken")
        try SchemaBounds.check(person.handle, Limits.personField, at: "\(path()).handle")
        try SchemaBounds.check(person.contactID, Limits.personField, at: "\(path()).contactID")
        try SchemaBounds.check(person.displayName, Limits.personField, at: "\(path()).displayName")
    }
}
