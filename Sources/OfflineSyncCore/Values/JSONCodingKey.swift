/// A key in the coding path of ``JSONValueEncoder`` and ``JSONValueDecoder`` that no `CodingKeys` type supplies: the
/// index of an array element (`"Index 3"`, 3, as `JSONDecoder` names it) or `"super"`.
package struct JSONCodingKey: CodingKey, Sendable {
    package let stringValue: String
    package let intValue: Int?

    package init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    package init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }

    /// The key of the element at `index` of an array.
    package init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    /// The key `superEncoder()` and `superDecoder()` use.
    package static let `super` = JSONCodingKey(stringValue: "super")
}
