/// Removes secrets from text that came from elsewhere (a server's error body, a library's error
/// description) before it is shown or logged.
package struct Redactor: Sendable {
    package var secrets: [String]

    package init(secrets: [String] = []) {
        self.secrets = secrets.filter { $0.count >= 4 }
    }

    package func redact(_ text: String) -> String {
        var result = text
        for secret in secrets {
            result = result.replacingOccurrences(of: secret, with: "[redacted]")
        }
        return Self.redactKeyLikeText(result)
    }

    /// The server echoes a rejected key back, which may not be the key we know: any `api_key=`
    /// value and any run of 32 or more hex digits is treated as a key.
    static func redactKeyLikeText(_ text: String) -> String {
        var output = ""
        var hexRun = ""
        func flushHex() {
            output += hexRun.count >= 32 ? "[redacted]" : hexRun
            hexRun = ""
        }
        for character in text {
            if character.isHexDigit && character.isASCII {
                hexRun.append(character)
            } else {
                flushHex()
                output.append(character)
            }
        }
        flushHex()
        // "api_key=<anything>" in a URL or a form body
        var parts = output.components(separatedBy: "api_key=")
        guard parts.count > 1 else { return output }
        for index in parts.indices.dropFirst() {
            let rest = parts[index]
            let end = rest.firstIndex(where: { $0 == "&" || $0 == " " || $0 == "\"" || $0 == "'" || $0.isNewline }) ?? rest.endIndex
            parts[index] = "[redacted]" + rest[end...]
        }
        return parts.joined(separator: "api_key=")
    }
}
