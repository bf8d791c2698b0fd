import Foundation

package enum Fixtures {
    package static func url(_ name: String) throws -> URL {
        guard let url = Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil) else {
            throw FixtureMissing(name: name)
        }
        return url
    }

    package static func text(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: try url(name)), as: UTF8.self)
    }

    package static func data(_ name: String) throws -> Data {
        try Data(contentsOf: try url(name))
    }

    package struct FixtureMissing: Error, CustomStringConvertible {
        package var name: String
        package var description: String { "test fixture \(name) is missing" }
    }
}
