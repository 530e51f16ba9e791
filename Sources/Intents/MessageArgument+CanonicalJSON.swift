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
    ///
    /// A message has one to three arguments: their positions are sorted by name in a
    /// buffer on the stack, where a sorted copy of the names was an allocation per record
    /// and a hash per name to find each value again. Many (a message does not have them)
    /// are sorted as a copy, so the work stays `n log n`.
    public static func writeCanonicalJSON(_ arguments: [String: MessageArgument], into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        func write(_ index: Dictionary<String, MessageArgument>.Index, first: Bool) {
            if !first { output.append(UInt8(ascii: ",")) }
            CanonicalObjectWriter.write(arguments[index].key, into: &output)
            output.append(UInt8(ascii: ":"))
            arguments[index].value.writeCanonicalJSON(into: &output)
        }
        if arguments.count > 8 {
            for (position, index) in arguments.indices.sorted(by: { arguments[$0].key < arguments[$1].key })
                .enumerated()
            {
                write(index, first: position == 0)
            }
        } else {
            withUnsafeTemporaryAllocation(of: Dictionary<String, MessageArgument>.Index.self, capacity: arguments.count)
            { order in
                order.initialize(repeating: arguments.startIndex)
                var count = 0
                for index in arguments.indices {
                    var slot = count
                    while slot > 0, arguments[index].key < arguments[order[slot - 1]].key {
                        order[slot] = order[slot - 1]
                        slot -= 1
                    }
                    order[slot] = index
                    count += 1
                }
                for position in 0..<count { write(order[position], first: position == 0) }
                order.deinitialize()
            }
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
