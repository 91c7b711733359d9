/// Shows progress of long work on standard error: a redrawn bar on a terminal, plain lines otherwise.
struct ProgressReporter: Sendable {
    /// What is being done, e.g. `"pull TodoItem"`.
    let label: String
    /// Whether to draw a bar (standard error is a terminal) or print occasional lines.
    let interactive: Bool

    init(label: String, interactive: Bool = Terminal.standardErrorIsTerminal) {
        self.label = label
        self.interactive = interactive
    }

    /// Reports `done` of `total` (total unknown when nil).
    func update(done: Int, total: Int?) {
        if interactive {
            Terminal.write("\r\u{1B}[2K" + line(done: done, total: total), to: 2)
        } else if done == 0 || isMilestone(done: done, total: total) {
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
        guard let total, total > 0 else { return "\(label): \(done) done" }
        let fraction = min(max(Double(done) / Double(total), 0), 1)
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let percent = Int(fraction * 100)
        return "\(label) [\(bar)] \(percent)% (\(done)/\(total))"
    }

    /// In plain mode, print at every 10% (or every 10,000 when the total is unknown).
    private func isMilestone(done: Int, total: Int?) -> Bool {
        guard let total, total > 0 else { return done % 10_000 == 0 }
        let step = max(total / 10, 1)
        return done % step == 0
    }
}
