import ArgumentParser
import Foundation
import LibraryArchive
import Notes
import SampleServer
import Timeline

/// For `make bench`: a year of nights in a snapshot's `timeline.json` without a year of exports.
/// Each of the nights before the snapshot's own changes a share of the books (moves between
/// shelves, notes written and rewritten, renames, a few books added and removed, authors, ISBNs and
/// covers), drawn from a seed, so that two builds' nights start from the same timeline. The books'
/// arrivals the snapshot's timeline holds are kept; the snapshot's library and state are not
/// touched, so the next export carries the year on (it reads the last timeline from the snapshot).
struct TimelineYear: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline-year",
        abstract: "Write a year of simulated nights into a snapshot's timeline.json (for make bench)."
    )

    @Option(name: .long, help: ArgumentHelp("A snapshot an export made (its library.json and timeline.json).", valueName: "dir"))
    var snapshot: String

    @Option(name: .long, help: ArgumentHelp("How many nights, ending with the snapshot's own.", valueName: "n"))
    var nights: Int = 365

    @Option(name: .long, help: ArgumentHelp("The share of the books changed each night.", valueName: "share"))
    var share: Double = 0.01

    @Option(name: .long, help: ArgumentHelp("The seed of the draws.", valueName: "s"))
    var seed: UInt64 = 1

    func validate() throws {
        guard (1...10_000).contains(nights) else { throw ValidationError("--nights must be between 1 and 10000.") }
        guard share > 0, share <= 1 else { throw ValidationError("--share must be above 0 and at most 1.") }
    }

    func run() throws {
        let folder = URL(fileURLWithPath: snapshot)
        let library = try Library.read(from: folder.appendingPathComponent("library.json"))
        guard let last = try Timeline.read(in: folder) else {
            throw ValidationError("\(snapshot) has no timeline.json: export it with a build that keeps one")
        }
        guard let lastDay = Day(last.through) else { throw ValidationError("The timeline's night is not a date: \(last.through)") }
        // The sample library's generator: the same draws for the same seed, on every machine.
        var draws = SplitMix64(seed: seed)
        var simulation = Simulation(library: library)
        // The arrivals the export found stay; the simulated nights come before the snapshot's own.
        var events = last.events.filter { $0.kind == .added }
        let first = lastDay.adding(-(nights - 1))
        let perNight = max(1, Int((Double(library.books.count) * share).rounded()))
        for night in 0..<nights {
            let date = first.adding(night).text
            events += simulation.night(date, changes: perNight, draws: &draws)
        }
        let timeline = Timeline(began: first.text, through: last.through, events: events)
        let data = try timeline.encoded()
        try data.write(to: folder.appendingPathComponent(Timeline.fileName), options: .atomic)
        print("timeline.json: \(timeline.events.count) events over \(nights) nights (\(perNight) books a night), \(data.count) bytes")
    }
}

/// The library as the nights change it: each book's shelf and title, the books added since.
private struct Simulation {
    var shelves: [String]
    var books: [(id: Int, title: String, shelf: Int, note: Bool)]
    var nextID: Int

    init(library: Library) {
        shelves = library.shelves.map(\.name).sorted()
        if shelves.isEmpty { shelves = ["no shelf"] }
        let place = Dictionary(library.shelves.map(\.name).sorted().enumerated().map { ($1, $0) }) { first, _ in first }
        books = library.books.map { ($0.id, $0.title, place[$0.shelfName ?? ""] ?? 0, $0.note.source?.isEmpty == false) }
        // Far above the library's ids: the sample server numbers the books it adds from its highest,
        // and a book the year added and removed is not one the server adds tonight.
        nextID = (library.books.map(\.id).max() ?? 0) + 10_000_000
    }

    /// One night's events: `changes` books drawn, each changed one way, by a realistic mix.
    mutating func night(_ date: String, changes: Int, draws: inout SplitMix64) -> [TimelineEvent] {
        var events: [TimelineEvent] = []
        for _ in 0..<changes {
            let index = draws.next(books.count)
            let book = books[index]
            let on = [shelves[book.shelf]]
            func event(_ kind: TimelineEvent.Kind) -> TimelineEvent {
                TimelineEvent(date: date, book: book.id, kind: kind, title: book.title, shelves: on)
            }
            switch draws.next(100) {
            case 0..<45:  // a move, the most common change: To Read → Reading → Read
                let to = (book.shelf + 1 + draws.next(max(1, shelves.count - 1))) % shelves.count
                books[index].shelf = to
                events.append(TimelineEvent(date: date, book: book.id, kind: .moved, title: book.title, shelves: on, to: [shelves[to]]))
            case 45..<84:
                events.append(event(book.note ? .noteRewritten : .noteWritten))
                books[index].note = true
            case 84..<86:  // a title corrected: rare, and it changes the book's file, so every page that links it
                let title = book.title + " (revised)"
                books[index].title = title
                events.append(TimelineEvent(date: date, book: book.id, kind: .renamed, title: title, shelves: on, formerTitle: book.title))
            case 86..<92:
                let id = nextID
                nextID += 1
                let added = (id: id, title: "A book added on \(date)", shelf: draws.next(shelves.count), note: false)
                books.append(added)
                events.append(TimelineEvent(date: date, book: id, kind: .added, title: added.title, shelves: [shelves[added.shelf]]))
            case 92..<93:  // a removal: rare, and it changes every page that links the book
                events.append(event(.removed))
                books.swapAt(index, books.count - 1)
                books.removeLast()
            case 93..<95: events.append(event(.authorChanged))
            case 95..<97: events.append(event(.isbnChanged))
            case 97..<99: events.append(event(.coverChanged))
            default:
                events.append(event(book.note ? .noteRemoved : .coverAdded))
                books[index].note = false
            }
        }
        return events
    }
}

/// A day by its number since 1970-01-01 (UTC), and back to `YYYY-MM-DD`.
private struct Day {
    var number: Int

    init?(_ date: String) {
        let parts = date.prefix(10).split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        // Howard Hinnant's days_from_civil.
        let (m, d) = (parts[1], parts[2])
        let y = parts[0] - (m <= 2 ? 1 : 0)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        number = era * 146_097 + (yoe * 365 + yoe / 4 - yoe / 100 + doy) - 719_468
    }

    private init(number: Int) { self.number = number }

    func adding(_ days: Int) -> Day { Day(number: number + days) }

    var text: String {
        let z = number + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return String(format: "%04d-%02d-%02d", y, m, d)
    }
}
