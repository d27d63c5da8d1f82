extension KioskMachine {
    /// `playlist status`: the current item, its position and what the loop is
    /// doing at `instant`; `saveProblem`: why the state file cannot be written.
    func status(at instant: KioskInstant, saveProblem: String?) -> [String] {
        var machine = self
        machine.now = instant.now
        machine.secondOfDay = instant.secondOfDay
        return machine.statusLines(saveProblem: saveProblem)
    }

    private func statusLines(saveProblem: String?) -> [String] {
        let playlist = state.playlist
        var lines: [String] = []
        let options = "loop \(settings.loop ? "on" : "off"), shuffle \(settings.shuffle ? "on" : "off"), start \(settings.start.rawValue)"
        lines.append(playlist.isEmpty ? "playlist: none (\(options))" : "playlist: \(playlist.origin) (\(playlist.count) items, \(options))")
        func itemText(_ index: Int) -> String {
            "item \(index + 1)/\(playlist.count) \"\(playlist.items[index].name)\""
        }
        switch state.mode {
        case .waiting(let why):
            lines.append("now: stopped (\(why))" + (playlist.currentIndex.map { "; next: " + itemText($0) } ?? ""))
        case .closed:
            lines.append("now: outside the schedule")
        case .loading:
            lines.append("now: loading " + (playlist.currentIndex.map(itemText) ?? "?"))
        case .playing(let playing):
            var text = "now: playing " + itemText(playing.itemIndex)
            if let position = position(of: playing) {
                text += " " + KioskMachine.clockText(position) + (state.latest.duration.map { " / " + KioskMachine.clockText($0) } ?? "")
            }
            if let ends = playing.imageEnds { text += " (slide, \(max(Int((ends - now).seconds.rounded()), 0)) s left)" }
            lines.append(text)
        case .welcome(let until, let launched):
            lines.append("now: welcome app \(settings.appID ?? "?")" + (launched ? "" : " (launching)")
                         + (until.map { " for \(max(Int(($0 - now).seconds.rounded()), 0)) s more" } ?? ""))
        case .guest(let guest):
            var text = "now: a guest has the screen" + (guest.appName.map { " (\($0))" } ?? "")
            if let idle = guest.idleSince, settings.guestIdleMinutes > 0 {
                let left = settings.guestIdleMinutes * 60 - (now - idle).seconds
                text += "; back to the loop in \(max(Int(left.rounded()), 0)) s unless something plays"
            } else {
                text += "; back to the loop when the guest's app stops"
            }
            lines.append(text)
            if let index = playlist.currentIndex { lines.append("  then: " + itemText(index)) }
        case .backingOff(let until):
            lines.append("now: every item failed; next try in \(max(Int((until - now).seconds.rounded()), 0)) s")
        }
        if !settings.schedule.windows.isEmpty {
            lines.append("schedule: \(settings.schedule.windows.map(\.description).joined(separator: ", ")) (\(scheduleIsOpen ? "open" : "closed") now)")
        }
        if let problem = state.lastProblem { lines.append("problem: \(problem)") }
        if let problem = saveProblem { lines.append("problem: \(problem)") }
        return lines
    }

    static func clockText(_ seconds: Double) -> String {
        let total = Int(min(max(seconds, 0), 359_999).rounded(.down))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let mmss = (minutes < 10 ? "0" : "") + "\(minutes):" + (secs < 10 ? "0" : "") + "\(secs)"
        return hours > 0 ? "\(hours):" + mmss : mmss
    }
}
