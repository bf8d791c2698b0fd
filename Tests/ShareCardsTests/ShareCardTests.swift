import Testing
@testable import ShareCards

/// A share card's name is made from what it shows: the same inputs, the same name (linked from the
/// last snapshot, kept by hosts for good); any input changed, another name.
@Suite struct ShareCardTests {
    @Test func theNameChangesWithEveryInputAndOnlyWithThem() {
        let card = ShareCard.book(title: "Emma", author: "Jane Austen", cover: "covers/ab-384.jpg", siteTitle: "Library")
        #expect(card.path == ShareCard.book(title: "Emma", author: "Jane Austen", cover: "covers/ab-384.jpg", siteTitle: "Library").path)
        #expect(card.path.range(of: #"^cards/[0-9a-f]{32}\.jpg$"#, options: .regularExpression) != nil, "\(card.path)")
        let others = [ShareCard.book(title: "Emma.", author: "Jane Austen", cover: "covers/ab-384.jpg", siteTitle: "Library"),
                      .book(title: "Emma", author: "Jane Austen", cover: nil, siteTitle: "Library"),
                      .book(title: "Emma", author: "Jane Austen", cover: "covers/ab-384.jpg", siteTitle: "Our books"),
                      // Fields run into each other only if they are not kept apart.
                      .book(title: "EmmaJane", author: " Austen", cover: "covers/ab-384.jpg", siteTitle: "Library"),
                      .row(name: "Emma", line: "Jane Austen", covers: ["covers/ab-384.jpg"], siteTitle: "Library")]
        #expect(Set(others.map(\.path) + [card.path]).count == others.count + 1)
    }

    @Test func whatAScreenReaderSaysOfACard() {
        #expect(ShareCard.book(title: "Emma", author: "Jane Austen", cover: nil, siteTitle: "Library").alt == "Emma, by Jane Austen")
        #expect(ShareCard.book(title: "Emma", author: "", cover: nil, siteTitle: "Library").alt == "Emma")
        #expect(ShareCard.row(name: "Classics", line: "12 books", covers: [], siteTitle: "Library").alt == "Classics: 12 books")
    }
}
