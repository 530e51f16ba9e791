import ContactResolution
import Foundation

/// Any spoken name, in any script or none, against a small address book in
/// Han characters, Cyrillic and Latin: resolution must answer, never trap,
/// and never offer more than three candidates.
let resolver = ContactResolver(
    contacts: [
        Contact(id: "xiaoming", displayName: "小明", handles: ["+86 138 0000 0001"], interactionCount: 12),
        Contact(id: "sunbo", displayName: "孙波", givenName: "波", familyName: "孙"),
        Contact(id: "yulia", displayName: "Юлия Щукина", givenName: "Юлия", familyName: "Щукина"),
        Contact(id: "brandon-lee", displayName: "Brandon Lee", interactionCount: 2),
        Contact(id: "brandon-smith", displayName: "Brandon Smith", interactionCount: 40),
    ], now: Date(timeIntervalSince1970: 1_795_000_000))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContacts(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let spoken = String(decoding: UnsafeBufferPointer(start: data, count: min(size, 256)), as: UTF8.self)
    let resolution = resolver.resolve(spoken)
    precondition(resolution.candidates.count <= 3, "more than three candidates for \(spoken)")
    return 0
}
