import LibraryArchive
import Mustache
import Notes
import SnapshotStore
import Support

/// The stats page: totals, books per shelf, notes and covers, top authors, and books added per
/// year (from the dates `/books` gives), with the charts drawn as inline SVG: no chart library.
struct StatsPage {
    struct Bar {
        var label: String
        var count: Int
        /// The count as the pages' language writes it ("1.062").
        var countText: String
        /// The page the bar opens: a year's books.
        var href: String? = nil
        /// Geometry in the SVG's own units.
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var labelX: Int
        var labelY: Int
        var countX: Int
        var countY: Int
        /// Under a month's number, its year: on the first month of a chart and on each January.
        var yearLabel: String? = nil
        var yearLabelY = 0
    }

    /// One chart of the timeline's months: the moves into a shelf, or the notes written.
    struct MonthChart {
        var heading: String
        /// What the chart shows, for a screen reader: "Moved to Read, per month: November 2025, 3; …"
        var label: String
        var bars: [Bar]
        var width: Int
    }

    struct Author {
        var name: String
        var count: Int
        var countText: String
        var href: String
    }

    struct Subject {
        var name: String
        var count: Int
        var countText: String
    }

    static let topSubjectCount = 15

    var root: String
    var site: SiteView
    var shelfBars: [Bar]
    var shelfChartHeight: Int
    /// The longest shelf's count: each shelf's bar is its share of it.
    var shelfMost: Int
    var yearBars: [Bar]
    var yearChartWidth: Int
    var hasYears: Bool
    /// With a timeline: the moves into each shelf and the notes written, month by month.
    var monthCharts: [MonthChart]
    var topAuthors: [Author]
    /// Open Library's subjects (`--enrich openlibrary`), the most common first.
    var topSubjects: [Subject]
    var withNotes: Int
    var withCovers: Int
    var withoutShelf: Int

    static let barThickness = 22
    static let chartWidth = 640

    init(_ model: SiteModel, root: String) {
        self.root = root
        site = model.site
        let language = model.language
        let shelves = model.shelves.map { ($0.shelf.name, $0.books.count) }
        let most = max(1, shelves.map(\.1).max() ?? 1)
        let labelWidth = 200, span = Self.chartWidth - labelWidth - 60
        shelfBars = shelves.enumerated().map { index, item in
            let y = index * (Self.barThickness + 8)
            let width = item.1 == 0 ? 0 : max(2, item.1 * span / most)
            return Bar(label: item.0, count: item.1, countText: language.number(item.1), x: labelWidth, y: y, width: width, height: Self.barThickness,
                       labelX: labelWidth - 8, labelY: y + 16, countX: labelWidth + width + 6, countY: y + 16)
        }
        shelfChartHeight = max(1, shelves.count * (Self.barThickness + 8))
        shelfMost = most

        var perYear: [String: Int] = [:]
        for book in model.library.entries {
            // The years that have pages (YearIndex): a bar links its year's.
            if let day = book.createdAt.flatMap(SiteModel.day) { perYear[String(day.prefix(4)), default: 0] += 1 }
        }
        // Every year from the first to the last, those without a book too: a chart that skipped
        // them would put 2024 next to 2026 as if they followed each other. An empty year has no bar.
        // A year the timeline tells of has its page though no book was added in it.
        let pages = Set(model.years.years.map(\.year))
        let known = pages.compactMap { Int($0) }
        let years = known.isEmpty ? [] : (known.min()!...known.max()!).map(String.init)
        let mostInYear = max(1, perYear.values.max() ?? 1)
        let plotHeight = 160, columnWidth = 44
        yearBars = years.enumerated().map { index, year in
            let count = perYear[year] ?? 0
            let height = count == 0 ? 0 : max(2, count * plotHeight / mostInYear)
            let x = index * columnWidth + 8
            return Bar(label: year, count: count, countText: language.number(count), href: pages.contains(year) ? "years/\(year).html" : nil,
                       x: x, y: plotHeight - height + 20, width: columnWidth - 12, height: height,
                       labelX: x + (columnWidth - 12) / 2, labelY: plotHeight + 38, countX: x + (columnWidth - 12) / 2,
                       countY: plotHeight - height + 14)
        }
        yearChartWidth = max(1, years.count * columnWidth + 16)
        hasYears = !years.isEmpty

        monthCharts = model.timelineYears.map { Self.monthCharts($0.months, language: language) } ?? []
        topAuthors = model.authors.authors.filter { $0.name != nil }
            .sorted { ($1.books.count, $0.displayName) < ($0.books.count, $1.displayName) }.prefix(10)
            .map { Author(name: $0.displayName, count: $0.books.count, countText: language.number($0.books.count), href: "authors/\($0.fileName).html") }
        var perSubject: [String: (name: String, count: Int)] = [:]
        for book in model.library.entries {
            for subject in book.openLibrary?.subjects ?? [] {
                // "Fiction" and "fiction" are one subject, named as first met in id order.
                perSubject[subject.lowercased(), default: (subject, 0)].count += 1
            }
        }
        topSubjects = perSubject.values.sorted { ($1.count, $0.name) < ($0.count, $1.name) }.prefix(Self.topSubjectCount)
            .map { Subject(name: $0.name, count: $0.count, countText: language.number($0.count)) }
        withNotes = model.site.noteCount
        withCovers = model.site.coverCount
        withoutShelf = model.unshelved.count
    }
}

extension StatsPage {
    static let monthPlotHeight = 100, monthColumnWidth = 40

    /// A chart for each shelf books moved to in these months, the shelf with most moves first, then
    /// one of the notes written; every month keeps its place on the axis, those without an event too.
    static func monthCharts(_ months: [TimelineYears.Month], language: Language) -> [MonthChart] {
        var totals: [String: Int] = [:]
        for month in months { for (shelf, count) in month.movedTo { totals[shelf, default: 0] += count } }
        let shelves = totals.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map(\.key)
        var charts = shelves.map { shelf in
            chart(language.text("movedToPerMonth", ["shelf": shelf]), months.map { ($0.key, $0.movedTo[shelf] ?? 0) }, language: language)
        }
        if months.contains(where: { $0.notesWritten > 0 }) {
            charts.append(chart(language.text("notesWrittenPerMonth"), months.map { ($0.key, $0.notesWritten) }, language: language))
        }
        return charts
    }

    private static func chart(_ heading: String, _ counts: [(month: String, count: Int)], language: Language) -> MonthChart {
        let most = max(1, counts.map(\.count).max() ?? 1)
        let plot = monthPlotHeight, column = monthColumnWidth
        let bars = counts.enumerated().map { index, item in
            let height = item.count == 0 ? 0 : max(2, item.count * plot / most)
            let x = index * column + 8, middle = index * column + 8 + (column - 10) / 2
            let year = item.month.prefix(4), number = item.month.suffix(2)
            return Bar(label: String(number), count: item.count, countText: language.number(item.count),
                       x: x, y: plot - height + 20, width: column - 10, height: height,
                       labelX: middle, labelY: plot + 36, countX: middle, countY: plot - height + 14,
                       yearLabel: index == 0 || number == "01" ? String(year) : nil, yearLabelY: plot + 52)
        }
        let said = counts.map { language.month($0.month + "-01") + ", " + language.number($0.count) }.joined(separator: "; ")
        return MonthChart(heading: heading, label: heading + ": " + said, bars: bars, width: max(1, counts.count * column + 16))
    }
}

extension StatsPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return root
        case "site": return Ref(site)
        case "shelfBars": return shelfBars
        case "shelfChartHeight": return shelfChartHeight
        case "shelfMost": return shelfMost
        case "yearBars": return yearBars
        case "yearChartWidth": return yearChartWidth
        case "hasYears": return hasYears
        case "monthCharts": return monthCharts
        case "hasMonthCharts": return !monthCharts.isEmpty
        case "topAuthors": return topAuthors
        case "topSubjects": return topSubjects
        case "hasSubjects": return !topSubjects.isEmpty
        case "withNotes": return Text(site.language.number(withNotes))
        case "withCovers": return Text(site.language.number(withCovers))
        case "withoutShelf": return Text(site.language.number(withoutShelf))
        case "chartWidth": return Self.chartWidth
        default: return nil
        }
    }
}
