import Foundation

enum Fixtures {
    static func url(_ name: String) throws -> URL {
        guard let url = Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil) else {
            throw FixtureMissing(name: name)
        }
        return url
    }

    static func text(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: try url(name)), as: UTF8.self)
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: try url(name))
    }

    struct FixtureMissing: Error, CustomStringConvertible {
        var name: String
        var description: String { "test fixture \(name) is missing" }
    }
}
