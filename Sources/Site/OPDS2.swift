import Foundation

/// The objects of an OPDS 2.0 feed, as the published JSON Schemas name them. Each writes itself
/// as JSON, members in the order of their names (as JSONEncoder's sortedKeys would, at a fifth of
/// its time: a catalog has a feed for every shelf and author).
enum OPDS2 {
    enum Content {
        case navigation([Link])
        case publications([Publication])
    }

    /// The members of one object, written in the order given, those without a value left out.
    fileprivate struct Members {
        var first = true

        mutating func name(_ name: String, _ text: inout String) {
            text += first ? "\"" : ",\""
            text += name
            text += "\":"
            first = false
        }

        mutating func add(_ name: String, _ value: String?, _ text: inout String) {
            guard let value else { return }
            self.name(name, &text)
            text += SiteModel.jsonString(value)
        }

        mutating func add(_ name: String, _ value: Int?, _ text: inout String) {
            guard let value else { return }
            self.name(name, &text)
            text += String(value)
        }

        mutating func add<Item: Writable>(_ name: String, _ items: [Item]?, _ text: inout String) {
            guard let items else { return }
            self.name(name, &text)
            text += "["
            for (position, item) in items.enumerated() {
                if position > 0 { text += "," }
                item.write(to: &text)
            }
            text += "]"
        }

        mutating func add<Item: Writable>(_ name: String, _ item: Item?, _ text: inout String) {
            guard let item else { return }
            self.name(name, &text)
            item.write(to: &text)
        }
    }

    protocol Writable {
        func write(to text: inout String)
    }

    struct Properties: Writable {
        var numberOfItems: Int

        func write(to text: inout String) {
            var members = Members()
            text += "{"
            members.add("numberOfItems", numberOfItems, &text)
            text += "}"
        }
    }

    enum Rel {
        case one(String)
        case many([String])
    }

    struct Link: Writable {
        var href: String
        var type: String?
        var rel: Rel?
        var title: String?
        var width: Int?
        var height: Int?
        var properties: Properties?

        init(href: String, type: String? = nil, rel: Rel? = nil, title: String? = nil, width: Int? = nil, height: Int? = nil,
             properties: Properties? = nil) {
            self.href = href
            self.type = type
            self.rel = rel
            self.title = title
            self.width = width.flatMap { $0 > 0 ? $0 : nil }
            self.height = height.flatMap { $0 > 0 ? $0 : nil }
            self.properties = properties
        }

        func write(to text: inout String) {
            var members = Members()
            text += "{"
            members.add("height", height, &text)
            members.add("href", href, &text)
            members.add("properties", properties, &text)
            switch rel {
            case .one(let rel): members.add("rel", rel, &text)
            case .many(let rels):
                members.name("rel", &text)
                text += "[" + rels.map(SiteModel.jsonString).joined(separator: ",") + "]"
            case nil: break
            }
            members.add("title", title, &text)
            members.add("type", type, &text)
            members.add("width", width, &text)
            text += "}"
        }
    }

    struct FeedMetadata: Writable {
        var title: String
        var modified: String?
        var numberOfItems: Int?
        var itemsPerPage: Int?
        var currentPage: Int?

        func write(to text: inout String) {
            var members = Members()
            text += "{"
            members.add("currentPage", currentPage, &text)
            members.add("itemsPerPage", itemsPerPage, &text)
            members.add("modified", modified, &text)
            members.add("numberOfItems", numberOfItems, &text)
            members.add("title", title, &text)
            text += "}"
        }
    }

    struct Facet: Writable {
        var metadata: FeedMetadata
        var links: [Link]

        func write(to text: inout String) {
            var members = Members()
            text += "{"
            members.add("links", links, &text)
            members.add("metadata", metadata, &text)
            text += "}"
        }
    }

    struct Subject: Writable {
        var name: String
        var scheme: String?

        func write(to text: inout String) {
            var members = Members()
            text += "{"
            members.add("name", name, &text)
            members.add("scheme", scheme, &text)
            text += "}"
        }
    }

    struct PublicationMetadata: Writable {
        var type: String
        var title: String
        var identifier: String
        var author: String?
        var modified: String
        var publisher: String?
        var numberOfPages: Int?
        var subject: [Subject]?
        var description: String?

        func write(to text: inout String) {
            var members = Members()
            text += "{"
            members.add("@type", type, &text)
            members.add("author", author, &text)
            members.add("description", description, &text)
            members.add("identifier", identifier, &text)
            members.add("modified", modified, &text)
            members.add("numberOfPages", numberOfPages, &text)
            members.add("publisher", publisher, &text)
            members.add("subject", subject, &text)
            members.add("title", title, &text)
            text += "}"
        }
    }

    struct Publication: Writable {
        var metadata: PublicationMetadata
        var links: [Link]
        var images: [Link]?

        func write(to text: inout String) {
            var members = Members()
            text += "{"
            members.add("images", images, &text)
            members.add("links", links, &text)
            members.add("metadata", metadata, &text)
            text += "}"
        }
    }

    struct Feed: Writable {
        var metadata: FeedMetadata
        var links: [Link]
        var navigation: [Link]?
        var publications: [Publication]?
        var facets: [Facet]?

        func write(to text: inout String) {
            var members = Members()
            text += "{"
            members.add("facets", facets, &text)
            members.add("links", links, &text)
            members.add("metadata", metadata, &text)
            members.add("navigation", navigation, &text)
            members.add("publications", publications, &text)
            text += "}"
        }
    }
}
