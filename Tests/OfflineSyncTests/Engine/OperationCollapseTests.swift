import Testing
@testable import OfflineSync

struct OperationCollapseTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var pending: TableOperation.Kind?
        var action: TableOperation.Kind
        var expected: OperationCollapse
        var testDescription: String { "\(pending?.rawValue ?? "none") + \(action.rawValue) -> \(expected)" }
    }

    static let table: [Case] = [
        Case(pending: nil, action: .insert, expected: .addNew),
        Case(pending: nil, action: .update, expected: .addNew),
        Case(pending: nil, action: .delete, expected: .addNew),
        Case(pending: .insert, action: .insert, expected: .notAllowed),
        Case(pending: .insert, action: .update, expected: .keep),
        Case(pending: .insert, action: .delete, expected: .remove),
        Case(pending: .update, action: .insert, expected: .notAllowed),
        Case(pending: .update, action: .update, expected: .keep),
        Case(pending: .update, action: .delete, expected: .toDelete),
        Case(pending: .delete, action: .insert, expected: .notAllowed),
        Case(pending: .delete, action: .update, expected: .notAllowed),
        Case(pending: .delete, action: .delete, expected: .notAllowed),
    ]

    @Test(arguments: table)
    func collapseOfPendingOperation(_ item: Case) {
        #expect(OperationCollapse.decide(pending: item.pending, inFlight: false, action: item.action) == item.expected)
    }

    @Test(arguments: table)
    func inFlightOperationIsNeverCollapsedInto(_ item: Case) {
        let expected: OperationCollapse = item.expected == .notAllowed ? .notAllowed : .addNew
        #expect(OperationCollapse.decide(pending: item.pending, inFlight: true, action: item.action) == expected)
    }
}
