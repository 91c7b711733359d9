/// Shows progress of long work on standard error: a redrawn bar on a terminal, plain lines otherwise (at most one
/// line per tenth of the work). Use one reporter from one task.
final class ProgressReporter {
    /// What is being done, e.g. `"pull TodoItem"`; may change as the work moves on.
    var label: String
    /// Whether to draw a bar (standard error is a terminal) or print occasional lines.
    let interactive: Bool

    /// The last tenth (0...10) printed in plain mode, or -1.
    private var lastTenth = -1

    init(label: String, interactive: Bool = Terminal.standardErrorIsTerminal) {
        self.label = label
        self.interactive = interactive
    }

    /// Reports `done` of `total` (total unknown when nil).
    func update(done: Int, total: Int?) {
        if interactive {
            Terminal.write("\r\u{1B}[2K" + line(done: done, total: total), to: 2)
        } else if let tenth = newTenth(done: done, total: total) {
            lastTenth = tenth
            Terminal.error(line(done: done, total: total))
        }
    }

    /// Ends the report with a final line.
    func finish(done: Int, total: Int?) {
        if interactive {
            Terminal.write("\r\u{1B}[2K" + line(done: done, total: total) + "\n", to: 2)
        } else {
            Terminal.error(line(done: done, total: total))
        }
    }

    /// `label [#######.......]  42% (420/1000)` or `label: 420 done`.
    func line(done: Int, total: Int?) -> String {
        guard let reported = total, reported > 0 else { return "\(label): \(done) done" }
        // A pull may receive more records than the server counted (boundary records are fetched again).
        let total = max(reported, done)
        let fraction = min(max(Double(done) / Double(total), 0), 1)
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let percent = Int(fraction * 100)
        return "\(label) [\(bar)] \(percent)% (\(done)/\(total))"
    }

    /// In plain mode, the tenth of the work reached when it is one not printed yet (every 10,000 when the total is
    /// unknown); nil otherwise.
    private func newTenth(done: Int, total: Int?) -> Int? {
        guard let total, total > 0 else {
            return done % 10_000 == 0 && done / 10_000 != lastTenth ? done / 10_000 : nil
        }
        let tenth = min(done * 10 / total, 10)
        return tenth > lastTenth ? tenth : nil
    }
}
