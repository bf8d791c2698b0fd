import CLibXML2
import Support

/// A parsed piece of rich-text HTML, as plain Swift values.
indirect enum HTMLNode: Equatable, Sendable {
    case element(name: String, attributes: [String: String], children: [HTMLNode])
    case text(String)
}

/// Parses a rich-text note with libxml2's HTML parser.
///
/// Every libxml2 call of the project lives in this file; the tree is turned into Swift values at
/// once and freed. libxml2 parses the way a browser would: `<br>` is void, entities are decoded,
/// and unclosed tags are closed for us.
enum RichTextParser {
    /// Deeper nesting than this is flattened: no real note comes close, and a hostile one must not
    /// exhaust the stack.
    static let maximumDepth = 200

    /// libxml2 is safe to use from several threads once it is initialised, from one.
    private static let initialised: Void = xmlInitParser()

    static func parse(_ html: String) -> [HTMLNode] {
        let length = html.utf8.count
        guard length > 0 else { return [] }
        _ = initialised
        // XML_PARSE_HUGE lifts the 256-level nesting limit, past which libxml2 stops reading and the rest
        // of the note would be lost; the walk below bounds the depth itself.
        let options = Int32(HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue)
        let document = html.withCString { htmlReadMemory($0, Int32(clamping: length), nil, "UTF-8", options) }
        guard let document else { return [.text(html)] }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document) else { return [] }
        // The parser wraps a fragment in implied <html><body>; the note is what is inside <body>.
        if let body = findElement(named: "body", from: root) {
            return children(of: body, depth: 0)
        }
        return children(of: root, depth: 0)
    }

    private static func findElement(named name: String, from node: xmlNodePtr) -> xmlNodePtr? {
        if node.pointee.type == XML_ELEMENT_NODE, nodeName(node) == name { return node }
        var child = node.pointee.children
        while let current = child {
            if let found = findElement(named: name, from: current) { return found }
            child = current.pointee.next
        }
        return nil
    }

    private static func children(of node: xmlNodePtr, depth: Int) -> [HTMLNode] {
        var result: [HTMLNode] = []
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE:
                if depth >= maximumDepth {
                    result.append(.text(textContent(current)))
                } else {
                    result.append(.element(name: nodeName(current), attributes: attributes(of: current),
                                           children: children(of: current, depth: depth + 1)))
                }
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content {
                    result.append(.text(String(cString: content)))
                }
            default:
                break // comments, processing instructions: not the user's words
            }
            child = current.pointee.next
        }
        return result
    }

    private static func nodeName(_ node: xmlNodePtr) -> String {
        guard let name = node.pointee.name else { return "" }
        return String(cString: name).lowercased()
    }

    private static func attributes(of node: xmlNodePtr) -> [String: String] {
        var result: [String: String] = [:]
        var attribute = node.pointee.properties
        while let current = attribute {
            if let name = current.pointee.name {
                let key = String(cString: name).lowercased()
                if let value = xmlNodeGetContent(UnsafeMutableRawPointer(current).assumingMemoryBound(to: xmlNode.self)) {
                    result[key] = String(cString: value)
                    reader_xml_free(value)
                } else {
                    result[key] = ""
                }
            }
            attribute = current.pointee.next
        }
        return result
    }

    private static func textContent(_ node: xmlNodePtr) -> String {
        guard let content = xmlNodeGetContent(node) else { return "" }
        defer { reader_xml_free(content) }
        return String(cString: content)
    }
}
