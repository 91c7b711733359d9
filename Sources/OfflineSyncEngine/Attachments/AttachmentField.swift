/// A field whose value is an attachment id (a string) or null: the field an ``AttachmentQueue`` watches in a table's
/// items.
public struct AttachmentField: Sendable, Hashable {
    /// The table whose items hold the field.
    public var table: String
    /// The field's name.
    public var field: String

    /// The field `field` of the items of `table`.
    public init(table: String, field: String) {
        self.table = table
        self.field = field
    }
}
