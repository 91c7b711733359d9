/// Encrypts and authenticates the bytes a store writes, so that they are unreadable and tamper-evident at rest.
///
/// A conforming type holds one key. `seal` must never reuse a nonce under that key, also across crashes and
/// reopens; ``ChaChaPolyCipher`` draws a random 192-bit nonce per call for this.
public protocol StoreCipher: Sendable {
    /// Names the key (never the key itself), so that a store can say which key it needs.
    var keyIdentifier: String { get }
    /// Authenticated encryption; the result carries whatever `open` needs besides the key (e.g. the nonce).
    func seal(_ plaintext: [UInt8], associatedData: [UInt8]) throws -> [UInt8]
    /// Throws on any change to `sealed` or `associatedData`, or under another key.
    func open(_ sealed: [UInt8], associatedData: [UInt8]) throws -> [UInt8]
}
