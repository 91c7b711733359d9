import Testing
import Foundation
@testable import OfflineSyncCore
@testable import OfflineSyncEngine

/// The typed API's conversion between models and items: the tree coders, with a failure as `SyncError.modelCoding`.
struct ModelCodingTests {
    struct Todo: Codable, Equatable {
        var id: String
        var text: String
        var dueAt: Date?
        var note: String?
    }

    @Test func aModelRoundTripsThroughItsItem() throws {
        let coding = ModelCoding(table: "Todo")
        let todo = Todo(id: "a", text: "milk", dueAt: Date(timeIntervalSince1970: 1_767_225_600.25))
        let item = try coding.item(from: todo)
        #expect(item == ["id": "a", "text": "milk", "dueAt": "2026-01-01T00:00:00.250Z"])
        #expect(try coding.model(Todo.self, from: item) == todo)
    }

    @Test func aModelThatIsNoObjectIsAModelCodingError() {
        #expect { try ModelCoding(table: "Todo").item(from: ["a", "b"]) } throws: { error in
            (error as? SyncError)?.code == .modelCoding && "\(error)".contains("it does not encode to a JSON object")
        }
    }

    @Test func anItemTheModelDoesNotFitIsAModelCodingErrorNamingTheField() {
        #expect { try ModelCoding(table: "Todo").model(Todo.self, from: ["id": "a", "text": 5]) } throws: { error in
            (error as? SyncError)?.code == .modelCoding && "\(error)".contains("text")
        }
    }

    @Test func anUnencodableNumberIsAModelCodingError() {
        struct Reading: Codable {
            var id = "r"
            var value = Double.nan
        }
        #expect { try ModelCoding(table: "Reading").item(from: Reading()) } throws: { error in
            (error as? SyncError)?.code == .modelCoding
        }
    }
}
