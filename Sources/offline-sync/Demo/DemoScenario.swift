import Foundation
import OfflineSync

/// The Azure Mobile Apps offline tutorial, end to end: work offline, restart, reconnect, sync, meet a conflict,
/// resolve it, and pull incrementally. Each step prints what it does and the data it shows.
struct DemoScenario {
    let directory: URL
    let backEnd: DemoBackEnd
    let table = "TodoItem"
    let queryId = "demo-all-todos"
    /// A tag that keeps this run's items apart from earlier runs' on a real server.
    let runTag = String(UUID().uuidString.prefix(8))

    private var step = 0

    init(directory: URL, backEnd: DemoBackEnd) {
        self.directory = directory
        self.backEnd = backEnd
    }

    mutating func run() async throws {
        let network = SwitchableRemote(backEnd.remote, reachable: false)
        var mine: [DemoTodoItem]

        begin("The back end is unreachable: this device starts in airplane mode.")
        say("back end: \(backEnd.description); local store: a journal store in \(directory.path)")
        do {
            _ = try await network.read(Query(table: table, top: 1))
            throw DemoFailure("the back end answered although the network is off")
        } catch let error as RemoteError {
            say("a read from the back end fails: \(error)")
        }

        begin("Add and complete to-do items offline.")
        var store = try await JournalDataSource(directory: directory)
        var context = SyncContext(dataSource: store, remote: network)
        let todos = context.table(DemoTodoItem.self, name: table)
        var milk = try await todos.insert(DemoTodoItem(text: "buy milk (\(runTag))"))
        _ = try await todos.insert(DemoTodoItem(text: "renew the passport (\(runTag))"))
        var bill = try await todos.insert(DemoTodoItem(text: "pay the electric bill (\(runTag))"))
        let landlord = try await todos.insert(DemoTodoItem(text: "call the landlord (\(runTag))"))
        var orchids = try await todos.insert(DemoTodoItem(text: "water the orchids (\(runTag))"))
        bill.complete = true
        bill = try await todos.update(bill)
        orchids.complete = true
        orchids = try await todos.update(orchids)
        mine = try await localItems(todos)
        show(items: mine)
        try await show(pending: context)

        begin("Close and reopen the store, as if the app restarted.")
        try await store.close()
        store = try await JournalDataSource(directory: directory)
        context = SyncContext(dataSource: store, remote: network)
        let reopened = context.table(DemoTodoItem.self, name: table)
        let afterRestart = try await localItems(reopened)
        guard afterRestart == mine else { throw DemoFailure("the items after the restart differ from before it") }
        say("the reopened store holds the same \(afterRestart.count) items and these queued operations:")
        try await show(pending: context)

        begin("The back end has none of them yet.")
        let ids = mine.compactMap(\.id)
        let before = try await backEnd.items(ids: ids, table: table)
        guard before.isEmpty else { throw DemoFailure("the back end already holds \(before.count) of the items") }
        say("the back end holds 0 of the \(ids.count) items")

        begin("Reconnect, push the queued operations, and pull.")
        await network.setReachable(true)
        let pushed = try await context.push()
        say("pushed \(pushed.pushed) operations")
        let pulled = try await pull(todos: reopened, context: context, label: "pull \(table)")
        say("pulled \(pulled) records; \(try await context.pendingOperationCount()) operations still queued")

        begin("The back end's contents.")
        let onServer = try await backEnd.items(ids: ids, table: table)
        for item in onServer.sorted(by: { ($0["text"]?.stringValue ?? "") < ($1["text"]?.stringValue ?? "") }) {
            say("\(item["complete"]?.boolValue == true ? "[x]" : "[ ]") \(item["text"]?.stringValue ?? "?")  "
                + "version \(item["version"]?.stringValue ?? "-"), updatedAt \(item["updatedAt"]?.stringValue ?? "-")")
        }
        guard onServer.count == ids.count else { throw DemoFailure("the back end holds \(onServer.count) of \(ids.count) items") }

        begin("Another device edits the same item.")
        let other = SyncContext(dataSource: InMemoryDataSource(), remote: backEnd.remote)
        let otherTodos = other.table(DemoTodoItem.self, name: table)
        try await otherTodos.pull(Query(table: table, filter: Field("text").hasSuffix("(\(runTag))")), queryId: queryId)
        guard var otherMilk = try await otherTodos.read(id: milk.id ?? "") else { throw DemoFailure("the other device did not get the item") }
        otherMilk.text = "buy oat milk (\(runTag))"
        try await otherTodos.update(otherMilk)
        try await other.push()
        say("the other device changed \"\(milk.text)\" to \"\(otherMilk.text)\" and pushed it")

        begin("This device edits it too; the next push meets a conflict and a conflict handler resolves it.")
        let handler = DemoMergeHandler(report: { line in Terminal.out("   " + line) })
        context = SyncContext(dataSource: store, remote: network, conflictHandler: handler)
        let resolving = context.table(DemoTodoItem.self, name: table)
        guard let current = try await resolving.read(id: milk.id ?? "") else { throw DemoFailure("the item is gone locally") }
        milk = current
        milk.complete = true
        milk = try await resolving.update(milk)
        say("this device marked \"\(milk.text)\" complete (still holding the old version \(milk.version ?? "-"))")
        let resolved = try await context.push()
        say("pushed \(resolved.pushed) operation after resolving the conflict")
        guard let server = try await backEnd.items(ids: [milk.id ?? ""], table: table).first,
              server["text"]?.stringValue == "buy oat milk (\(runTag))", server["complete"]?.boolValue == true
        else { throw DemoFailure("the back end does not hold the merged item") }
        say("the back end now holds: [x] \(server["text"]?.stringValue ?? "?")")

        begin("A second, incremental pull fetches only what changed.")
        guard var otherBill = try await otherTodos.read(id: bill.id ?? "") else { throw DemoFailure("the other device lost an item") }
        otherBill.text = "pay the electric bill today (\(runTag))"
        try await otherTodos.update(otherBill)
        try await other.push()
        say("the other device renamed one more item")
        let incremental = try await pull(todos: resolving, context: context, label: "incremental pull")
        say("the incremental pull fetched \(incremental) of the \(ids.count) records: only those changed after the last "
            + "record the first pull stored, by (updatedAt, id); local items now:")
        mine = try await localItems(resolving)
        show(items: mine)
        guard mine.contains(where: { $0.text == otherBill.text }) else { throw DemoFailure("the change did not arrive") }
        guard incremental < ids.count else { throw DemoFailure("the incremental pull fetched every record again") }

        begin("A live query shows the open items as a pull and a local edit change them.")
        let open = Query(table: table, filter: Field("text").hasSuffix("(\(runTag))") && Field("complete") == false,
                         orderBy: [.ascending("text")])
        var live = resolving.observe(open).makeAsyncIterator()
        try showLive(try await live.next(), when: "now")
        guard var otherLandlord = try await otherTodos.read(id: landlord.id ?? "") else { throw DemoFailure("the other device lost an item") }
        otherLandlord.text = "call the landlord about the heating (\(runTag))"
        try await otherTodos.update(otherLandlord)
        try await other.push()
        say("the other device renamed \"\(landlord.text)\"")
        _ = try await pull(todos: resolving, context: context, label: "pull")
        try showLive(try await live.next(), when: "after the pull")
        guard var passport = try await resolving.read(Field("text") == .string("renew the passport (\(runTag))")).first
        else { throw DemoFailure("the passport item is gone") }
        passport.complete = true
        try await resolving.update(passport)
        say("this device completed \"\(passport.text)\"")
        let afterEdit = try await live.next()
        try showLive(afterEdit, when: "after the local edit")
        guard afterEdit?.contains(where: { $0.id == passport.id }) == false else { throw DemoFailure("the live query missed the edit") }
        try await store.close()
        Terminal.out("\nDemo finished: every step succeeded.")
    }

    /// Prints one element of the live query.
    private func showLive(_ items: [DemoTodoItem]?, when: String) throws {
        guard let items else { throw DemoFailure("the live query ended") }
        say("live query, \(when): \(items.count) open")
        show(items: items)
    }

    private func localItems(_ todos: TypedSyncTable<DemoTodoItem>) async throws -> [DemoTodoItem] {
        try await todos.read(Field("text").hasSuffix("(\(runTag))"), orderBy: [.ascending("text")])
    }

    /// Pulls this run's items incrementally with a progress bar; returns how many records arrived.
    private func pull(todos: TypedSyncTable<DemoTodoItem>, context: SyncContext, label: String) async throws -> Int {
        let updates = await context.progressUpdates(bufferingNewest: 1)
        let watcher = Task { () -> Int in
            let reporter = ProgressReporter(label: "   " + label)
            var received = 0
            for await progress in updates {
                guard case .pull = progress.activity else { continue }
                received = progress.completed
                if progress.phase == .finished || progress.phase == .failed {
                    reporter.finish(done: received, total: progress.total)
                    break
                }
                reporter.update(done: received, total: progress.total)
            }
            return received
        }
        do {
            try await todos.pull(Query(table: table, filter: Field("text").hasSuffix("(\(runTag))")), queryId: queryId,
                                 settings: PullSettings(pageSize: 50, requestsTotalCount: true))
        } catch {
            watcher.cancel()
            throw error
        }
        return await watcher.value
    }

    private mutating func begin(_ title: String) {
        step += 1
        Terminal.out("\n\(step). \(title)")
    }

    private func say(_ line: String) {
        Terminal.out("   " + line)
    }

    private func show(items: [DemoTodoItem]) {
        for item in items { say(item.line) }
    }

    private func show(pending context: SyncContext) async throws {
        for operation in try await context.pendingOperations() {
            say("queued: \(operation.kind.rawValue) \(operation.table)/\(operation.itemId)")
        }
    }

    /// The number of the step that is running, for error messages.
    var currentStep: Int { step }
}

/// A demo step whose result is not what the scenario expects.
struct DemoFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
