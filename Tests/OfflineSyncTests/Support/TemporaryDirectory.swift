import Foundation

/// A fresh directory under the system's temporary directory for one test, removed by `remove()`; every test that
/// needs a directory takes one of these.
struct TemporaryDirectory {
    let url: URL
    var path: String { url.path }

    /// A new, unique path; the directory itself exists only when `creating` is set (or once something writes there).
    init(creating: Bool = false) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("offline-sync-tests-\(UUID().uuidString)", isDirectory: true)
        if creating { try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    }

    /// The store directory inside it.
    var store: URL { url.appendingPathComponent("store", isDirectory: true) }
    var storePath: String { store.path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
