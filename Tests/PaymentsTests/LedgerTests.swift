import IntentEvents
import Intents
import Payments
import Testing

@Suite("Double-entry ledger")
struct LedgerTests {
    @Test("deposit, hold, post and void move money between accounts; every transaction balances")
    func movesMoney() throws {
        var ledger = try fundedLedger()
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("1000")))
        try ledger.apply(
            LedgerEvent(
                id: "h1", kind: .hold, userID: "alice", intentID: "i1", transferID: "t1",
                entries: [
                    LedgerEntry(account: Ledger.available("alice"), side: .debit, amount: cny("100.50")),
                    LedgerEntry(account: Ledger.held("alice"), side: .credit, amount: cny("100.50")),
                ], counterpartyUserID: "bob", amount: cny("100.50")))
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("899.5")))
        #expect(ledger.balance(Ledger.held("alice"), "CNY") == Money(cny("100.5")))
        try ledger.apply(
            LedgerEvent(
                id: "p1", kind: .post, userID: "alice", transferID: "t1",
                entries: [
                    LedgerEntry(account: Ledger.held("alice"), side: .debit, amount: cny("100.50")),
                    LedgerEntry(account: Ledger.clearing, side: .credit, amount: cny("100.50")),
                ]))
        #expect(ledger.balance(Ledger.clearing, "CNY") == Money(cny("100.5")))
        #expect(ledger.balance(Ledger.held("alice"), "CNY") == Money.zero("CNY"))
        #expect(ledger.transfers["t1"]?.status == .posted)
        // Bob's side: the credit takes it out of clearing.
        try ledger.apply(
            LedgerEvent(
                id: "c1", kind: .credit, userID: "bob", transferID: "t1",
                entries: LedgerEntry.move(cny("100.50"), from: Ledger.clearing, to: Ledger.available("bob")),
                counterpartyUserID: "alice", amount: cny("100.50")))
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money(cny("100.5")))
        #expect(ledger.balance(Ledger.clearing, "CNY") == Money.zero("CNY"))
        // A credit may only take money out of clearing, into its own user's account.
        #expect(throws: Ledger.ApplyError.movementNotAllowed(event: "c2", kind: "credit")) {
            try ledger.apply(
                LedgerEvent(
                    id: "c2", kind: .credit, userID: "bob", transferID: "t1",
                    entries: LedgerEntry.move(cny("1"), from: Ledger.clearing, to: Ledger.available("mallory")),
                    counterpartyUserID: "alice", amount: cny("1")))
        }
        // Money is neither created nor lost: all balances sum to zero.
        #expect(ledger.allBalances.reduce(0) { $0 + $1.money.micros } == 0)
    }

    @Test("a movement's two entries count in either order, and accounts compare as strings compare")
    func movementShapes() throws {
        var ledger = try fundedLedger()
        // The credit written first.
        try ledger.apply(
            LedgerEvent(
                id: "h1", kind: .hold, userID: "alice", intentID: "i1", transferID: "t1",
                entries: LedgerEntry.move(cny("10"), from: Ledger.available("alice"), to: Ledger.held("alice"))
                    .reversed(), counterpartyUserID: "bob", amount: cny("10")))
        #expect(ledger.balance(Ledger.held("alice"), "CNY") == Money(cny("10")))
        // A user id written precomposed, the account's name decomposed: equal strings (canonical
        // equivalence), so the same account, as when the name was made and compared as a string.
        let precomposed = "jos\u{E9}"
        let decomposed = "jose\u{301}"
        #expect(precomposed == decomposed && Array(precomposed.utf8) != Array(decomposed.utf8))
        try ledger.apply(
            LedgerEvent.deposit(id: "deposit-jose", userID: precomposed, amount: cny("5")))
        try ledger.apply(
            LedgerEvent(
                id: "d2", kind: .deposit, userID: precomposed,
                entries: LedgerEntry.move(cny("7"), from: Ledger.funding, to: Ledger.available(decomposed)),
                amount: cny("7")))
        #expect(ledger.availableBalance(of: precomposed, "CNY") == Money(cny("12")))
    }

    @Test("a balance that would overflow is refused, not a crash of the worker reading it")
    func overflowRefused() throws {
        var ledger = try fundedLedger()
        let largest = cny("999999999999.999999")
        // Ten credits of the largest amount: past Int64 micro-units on the tenth.
        let tooMuch = LedgerEvent(
            id: "huge", kind: .deposit, userID: "bob",
            entries: Array(
                repeating: LedgerEntry(account: Ledger.available("bob"), side: .credit, amount: largest), count: 10)
                + Array(repeating: LedgerEntry(account: "bank/CNY", side: .debit, amount: largest), count: 10))
        #expect(throws: Ledger.ApplyError.self) { try ledger.apply(tooMuch) }
        #expect(!ledger.contains(eventID: "huge"))
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money.zero("CNY"))
    }

    @Test("an event applied twice changes nothing")
    func idempotent() throws {
        var ledger = try fundedLedger()
        let deposit = LedgerEvent.deposit(id: "deposit-alice", userID: "alice", amount: cny("1000"))
        #expect(try ledger.apply(deposit) == false)
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("1000")))
    }

    @Test("no negative balances, no unbalanced transactions, no posting an unknown transfer")
    func invariants() throws {
        var ledger = try fundedLedger()
        let overdraft = LedgerEvent(
            id: "h-big", kind: .hold, userID: "alice", intentID: "i", transferID: "t",
            entries: [
                LedgerEntry(account: Ledger.available("alice"), side: .debit, amount: cny("1000.01")),
                LedgerEntry(account: Ledger.held("alice"), side: .credit, amount: cny("1000.01")),
            ], counterpartyUserID: "bob", amount: cny("1000.01"))
        #expect(throws: Ledger.ApplyError.negativeBalance(Ledger.available("alice"))) { try ledger.apply(overdraft) }
        let unbalanced = LedgerEvent(
            id: "u", kind: .deposit, userID: "bob",
            entries: [LedgerEntry(account: Ledger.available("bob"), side: .credit, amount: cny("5"))])
        #expect(throws: Ledger.ApplyError.unbalanced("u")) { try ledger.apply(unbalanced) }
        let post = LedgerEvent(id: "p", kind: .post, userID: "alice", transferID: "nope")
        #expect(throws: Ledger.ApplyError.unknownTransfer("nope")) { try ledger.apply(post) }
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("1000")))
        #expect(!ledger.contains(eventID: "h-big"))
    }
}

@Suite("Confirmation bindings and event signatures")
struct BindingTests {
    @Test(
        "a binding matches only its own kind, intent, user, payee contact, account and its owner, amount, note, expiry and asking service"
    )
    func binding() {
        let terms = BindingTerms(
            kind: .sendPayment, intentID: "i", userID: "alice", counterpartyContactID: "c-bob",
            counterpartyAccount: "bob@example.com", money: Money(cny("100")), note: "lunch",
            expiresAt: Timestamp(t0))
        let binding = bindingKey.binding(terms)
        var same = terms
        same.money = Money(cny("100.00"))
        same.counterpartyAccount = "Bob@Example.com"
        #expect(bindingKey.matches(binding, same), "the same amount and handle, written differently")
        var variants: [BindingTerms] = []
        func variant(_ change: (inout BindingTerms) -> Void) {
            var changed = terms
            change(&changed)
            variants.append(changed)
        }
        variant { $0.kind = .requestPayment }
        variant { $0.intentID = "other" }
        variant { $0.userID = "bob" }
        variant { $0.counterpartyContactID = "c-eve" }
        variant { $0.counterpartyAccount = "mallory@evil.example" }
        variant { $0.counterpartyAccount = nil }
        variant { $0.money = Money(cny("100.01")) }
        variant { $0.money = Money(CurrencyAmount(amount: DecimalAmount("100")!, currency: "USD")) }
        variant { $0.note = "dinner" }
        variant { $0.note = nil }
        variant { $0.expiresAt = Timestamp(t0.addingTimeInterval(1)) }
        variant { $0.counterpartyUserID = "mallory" }
        variant { $0.requestSource = "/voice/other" }
        for changed in variants { #expect(!bindingKey.matches(binding, changed), "\(changed)") }
        #expect(!BindingKey(Array(repeating: 8, count: 32)).matches(binding, terms))
    }

    @Test("signatures: per-source keys, any change to the event breaks it")
    func signatures() throws {
        var (event, signature) = answerEvent(
            .confirmed, binding: ConfirmationBinding(digest: "x", expiresAt: Timestamp(t0)), intentID: "i")
        try authenticator.verify(event, signature: signature)
        #expect(throws: EventDecodingError.self) { try authenticator.verify(event, signature: nil) }
        event.userID = "bob"
        #expect(throws: EventDecodingError.self) { try authenticator.verify(event, signature: signature) }
        event.userID = "alice"
        event.source = "/voice/unknown"
        #expect(throws: EventDecodingError.self) { try authenticator.verify(event, signature: signature) }
    }

    @Test("rotation: both keys verify, the last one listed signs, a retired key id is refused")
    func rotation() throws {
        let old = SigningKey(source: "/workers/confirm", id: "2026-01", bytes: Array(repeating: 1, count: 32))
        let new = SigningKey(source: "/workers/confirm", id: "2026-11", bytes: Array(repeating: 2, count: 32))
        let event = EventEnvelope(
            id: "e", source: "/workers/confirm", type: "t", time: t0, userID: "u", conversationID: "c", data: .null)
        let before = EventAuthenticator(keys: [old])
        let during = EventAuthenticator(keys: [old, new])
        let after = EventAuthenticator(keys: [new])
        let oldSignature = try #require(before.signature(for: event))
        let newSignature = try #require(during.signature(for: event))
        #expect(newSignature.keyID == "2026-11", "the last key listed signs")
        try during.verify(event, signature: oldSignature)
        try during.verify(event, signature: newSignature)
        try after.verify(event, signature: newSignature)
        #expect(throws: EventDecodingError.self) { try after.verify(event, signature: oldSignature) }
        // Without a key id (older voice clients), every key of the source is tried.
        try during.verify(event, signature: EventSignature(keyID: nil, hex: oldSignature.hex))
        // A key id of the right source but the wrong signature bytes.
        #expect(throws: EventDecodingError.self) {
            try during.verify(event, signature: EventSignature(keyID: "2026-11", hex: oldSignature.hex))
        }
    }

    @Test("keys are read as SOURCE [KEYID] HEXKEY lines and must be long enough")
    func keys() throws {
        let hex = String(repeating: "ab", count: 32)
        let keys = try EventAuthenticator.parseKeys(
            "# voice\n/voice/eu-1 \(hex)\n\n/voice/cn-1=\(hex)\n/voice/eu-1 k2 \(hex)", origin: "test")
        #expect(keys.map(\.source) == ["/voice/eu-1", "/voice/cn-1", "/voice/eu-1"])
        #expect(keys.map(\.bytes.count) == [32, 32, 32])
        #expect(keys[2].id == "k2")
        #expect(keys[0].id.count == 16, "a derived key id: 8 bytes of the key's SHA-256 in hex")
        #expect(throws: EventAuthenticator.KeyError.self) {
            try EventAuthenticator.parseKeys("/voice/x abcd", origin: "t")
        }
        #expect(throws: EventAuthenticator.KeyError.self) {
            try EventAuthenticator.parseKeys("/voice/x zz\(hex)", origin: "t")
        }
        #expect(throws: EventAuthenticator.KeyError.self) {
            try EventAuthenticator.parseKeys("/voice/x k \(hex)\n/voice/x k \(hex)", origin: "t")
        }
    }
}
