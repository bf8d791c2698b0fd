import Foundation
import Mustache
import TestSupport
import Testing
@testable import Site

/// `{{root}}` is written into the templates when they are loaded, once for each depth of page
/// (`TemplateSet.rooted`), instead of being looked up on each page. These tests hold the written
/// pages to the pages whose root is looked up, and the rewriting to tags that really are `root`.
@Suite struct TemplateRootTests {
    @Test func rootIsWrittenInWhereATagNamesItAndNowhereElse() async throws {
        let language = try await TemplateSet.bundled().language
        func written(_ text: String) -> String { language.writtenInto(text, html: true, root: "../") }

        #expect(written("<a href=\"{{root}}index.html\">") == "<a href=\"../index.html\">")
        #expect(written("{{ root }}|{{{root}}}|{{& root}}|{{{ root }}}.") == "../|../|../|../.")
        // A section, a longer name, a dotted name and a partial stay tags: they are not the root's text.
        for kept in ["{{#root}}x{{/root}}", "{{^root}}x{{/root}}", "{{rootish}}", "{{root.x}}", "{{>root}}", "{{! {{root}} }}"] {
            #expect(written(kept) == kept, "\(kept)")
        }
        // After other delimiters, what looks like a tag is text: the template is left as it is.
        let delimited = "{{root}}{{=<% %>=}}<%root%> {{root}}"
        #expect(written(delimited) == delimited)
        // Without a root, only the language's words are written in.
        #expect(language.writtenInto("{{root}}{{t.allBooks}}", html: true) == "{{root}}All books")
    }

    /// Every kind of page of a library with every value a view can show, rendered from the
    /// templates with the root written in and from the same templates looking it up.
    @Test func pagesWithTheRootWrittenInAreThePagesThatLookItUp() async throws {
        let templates = try await TemplateSet.bundled()
        let model = TemplateNamesTests.model()
        let kinds: [(template: String, markdown: Bool, pages: [any MustacheParent & RootedPage])] = [
            ("index", true, [model.indexPage(root: "")]),
            ("stats", false, [StatsPage(model, root: "")]),
            ("authors", true, [model.authorsPage(root: "")]),
            ("books", false, (1...model.booksPageCount).map { model.booksPage($0, root: "") }),
            ("shelf", true, model.shelves.map { model.shelfPage($0, root: "../") }),
            ("book", true, model.library.entries.indices.map {
                model.bookPage(model.bookView($0), noteMarkdown: "A *note*.", root: "../", noteHTML: "<p>A note.</p>")
            }),
            ("author", true, model.authors.authors.map { model.authorPage($0, root: "../") }),
            ("year", true, model.years.years.indices.map { model.yearPage($0, root: "../") }),
        ]
        var compared = 0
        for kind in kinds {
            for page in kind.pages {
                for format in kind.markdown ? [OutputFormat.html, .markdown] : [.html] {
                    let looked = try templates.render(context: page, format, template: kind.template)
                    let written = try templates.render(context: page, format, template: kind.template, root: page.root)
                    #expect(written == looked, "\(format) \(kind.template) at \(page.root.isEmpty ? "the top" : page.root)")
                    #expect(format == .markdown || page.root.isEmpty || looked.contains(page.root + "index.html"), "\(kind.template): the root is not on the page")
                    compared += 1
                }
            }
        }
        #expect(compared > 20)
    }
}
