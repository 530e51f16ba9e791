import Intents

/// Any text as an amount ("100.25", "1000 CNY"): exact parsing must refuse or
/// accept, never trap, and an accepted amount prints as text that parses back to it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAmount(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let amount = DecimalAmount(text) {
        precondition(DecimalAmount(amount.description) == amount, "\(text) does not round-trip")
        _ = amount.normalized
    }
    if let money = CurrencyAmount(parsing: text) {
        precondition(
            CurrencyAmount(parsing: "\(money.amount) \(money.currency)") == money, "\(text) does not round-trip")
    }
    return 0
}
