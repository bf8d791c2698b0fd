import Foundation

/// `assets/taken.js`: when the snapshot was taken, for the footers of the pages that carry no date
/// (a book's, a shelf's, an author's and a year's). Those pages are linked from the last snapshot
/// while what they show is unchanged, so they cannot hold a date that changes every night; this
/// file, written every night, puts it in their footer as the other pages give it, in the pages'
/// language. Without scripts such a footer says only what made the snapshot.
enum TakenScript {
    static let path = "assets/taken.js"

    static func source(_ model: SiteModel) -> Data {
        let taken = model.language.text("footerTaken") + " " + model.language.dateTime(model.frame.generatedAt) + " "
        return Data("""
        // When this snapshot was taken, for the footers of the pages written without it (reader-snapshot).
        (function () {
          var taken = document.getElementById("taken");
          if (!taken) return;
          taken.textContent = \(SiteModel.jsonString(taken));
          taken.hidden = false;
        })();

        """.utf8)
    }
}
