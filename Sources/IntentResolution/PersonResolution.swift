import ContactResolution
import Intents

/// Resolves a person parameter against the user's contacts, the way SiriKit's
/// `INPersonResolutionResult` does: a contact id the user picked wins; then a
/// handle; then the spoken name through the contact resolver.
///
/// Once a contact matched, the handle (the account a payment credits) is the
/// contact's, never the caller's: a caller handle that is not one of that
/// contact's is refused (`handleNotOfContact`), so "pay 孙波" cannot credit
/// an account 孙波 does not have.
struct PersonResolution {
    let book: ContactBook

    /// The result, and the person with `contactID` and `displayName` filled in on success.
    func resolve(_ person: Person?, parameter: String) -> (ParameterResolution, Person?) {
        guard let person else {
            return (ParameterResolution(parameter: parameter, outcome: .needsValue, message: "who?"), nil)
        }
        if let contactID = person.contactID {
            guard let contact = book.contact(id: contactID) else {
                return (notFound(parameter, "contact \(contactID) is not in the user's contacts"), person)
            }
            return matched(person, contact, parameter)
        }
        let spoken = person.spoken?.trimmingWhitespaceAndNewlines ?? ""
        if spoken.isEmpty, let handle = person.handle, !handle.isEmpty {
            guard let contact = book.contact(handle: handle) else {
                return (notFound(parameter, "no contact has the handle \(handle)"), person)
            }
            return matched(person, contact, parameter)
        }
        let resolution = book.resolver.resolve(spoken)
        let candidates = resolution.candidates.compactMap { id in
            book.contact(id: id).map { ContactCandidate(contactID: $0.id, displayName: $0.displayName) }
        }
        switch resolution.outcome {
        case .success:
            guard let contact = resolution.candidates.first.flatMap(book.contact(id:)) else {
                return (notFound(parameter, "no contact matches \"\(spoken)\""), person)
            }
            return matched(person, contact, parameter)
        case .disambiguation:
            return (
                ParameterResolution(
                    parameter: parameter, outcome: .disambiguation, candidates: candidates,
                    message: "which \"\(spoken)\"?"), person
            )
        case .confirmationRequired:
            return (
                ParameterResolution(
                    parameter: parameter, outcome: .confirmationRequired, candidates: candidates,
                    message: "did you mean \(candidates.first?.displayName ?? "this contact")?"), person
            )
        case .needsValue:
            return (ParameterResolution(parameter: parameter, outcome: .needsValue, message: "who?"), person)
        case .unsupported:
            return (notFound(parameter, "no contact matches \"\(spoken)\""), person)
        }
    }

    private func notFound(_ parameter: String, _ message: String) -> ParameterResolution {
        ParameterResolution(parameter: parameter, outcome: .unsupported, reason: "noContactFound", message: message)
    }

    /// Success with the contact's id, name and handle; or `unsupported` when the
    /// caller named a handle the contact does not have.
    private func matched(_ person: Person, _ contact: Contact, _ parameter: String) -> (ParameterResolution, Person?) {
        let handles = contact.handles ?? []
        var filled = person
        filled.contactID = contact.id
        filled.displayName = contact.displayName
        if let given = person.handle {
            let normalized = Person.normalizedHandle(given)
            guard let own = handles.first(where: { Person.normalizedHandle($0) == normalized }) else {
                let resolution = ParameterResolution(
                    parameter: parameter, outcome: .unsupported, reason: "handleNotOfContact",
                    message: "\(contact.displayName) has no handle \(given)")
                return (resolution, person)
            }
            filled.handle = own
        } else {
            filled.handle = handles.first
        }
        return (ParameterResolution(parameter: parameter, outcome: .success), filled)
    }
}
