public import IntentEvents

/// Message arguments travel in every response, confirmation and prompt a stage
/// writes, so they are written straight to canonical JSON: building each one's
/// ``MessageArgument/json`` first (an amount went through the generic `Encodable`
/// machinery) and then writing that tree cost a dozen allocations per record.
/// `MessageArgumentCanonicalTests` checks the bytes against the tree's.
extension MessageArgument {
    /// `{"amount":{"amount":"12.50","currency":"CNY"}}`, `{"text":"…"}` and so on, as
    /// ``json`` written canonically.
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        switch self {
        case .text(let text): object.string("text", text, into: &output)
        case .amount(let amount):
            object.key("amount", into: &output)
            amount.writeCanonicalJSON(into: &output)
        case .number(let number): object.integer("number", number, into: &output)
        case .names(let names): object.strings("names", names, into: &output)
        case .choices(let choices): object.strings("choices", choices, into: &output)
        }
        object.close(into: &output)
    }

    /// Arguments by name as one canonical JSON object (names sorted as
    /// ``CanonicalJSONWriter`` sorts keys): ``json(_:)`` written canonically.
    public static func writeCanonicalJSON(_ arguments: [String: MessageArgument], into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        for (index, name) in arguments.keys.sorted().enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            CanonicalObjectWriter.write(name, into: &output)
            output.append(UInt8(ascii: ":"))
            arguments[name]?.writeCanonicalJSON(into: &output)
        }
        output.append(UInt8(ascii: "}"))
    }
}

extension CanonicalObjectWriter {
    /// Optional message arguments, written directly (``MessageArgument/writeCanonicalJSON(_:into:)``).
    public mutating func arguments(
        _ key: StaticString, _ arguments: [String: MessageArgument]?, into output: inout [UInt8]
    ) {
        guard let arguments else { return }
        self.key(key, into: &output)
        MessageArgument.writeCanonicalJSON(arguments, into: &output)
    }
}
