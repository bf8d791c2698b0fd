import Foundation
import Support
import Testing

/// The one rule for a web address and its origin, which the server, covers, notes and options share.
@Suite struct WebAddressTests {
    @Test func onlyHTTPAndHTTPSWithAHostAreWebAddresses() {
        for text in ["ftp://x.example/", "file:///etc/passwd", "javascript:alert(1)", "https://", "not a url", "//x.example/", "mailto:a@b.c"] {
            #expect(WebAddress(text) == nil, "\(text)")
        }
        let address = WebAddress("  HTTPS://Reader.Example.com/base/ ")
        #expect(address?.scheme == "https" && address?.host == "reader.example.com" && address?.port == 443)
        #expect(WebAddress("http://[::1]:8080/")?.host == "::1")
        #expect(WebAddress("http://[::1]:8080/")?.port == 8080)
        #expect(WebAddress("http://u:p@x.example/")?.hasCredentials == true)
        #expect(WebAddress("http://x.example/?a=1")?.hasQuery == true)
        #expect(WebAddress("http://x.example/#top")?.hasFragment == true)
        #expect(WebAddress("http://x.example/")?.hasCredentials == false)
    }

    /// Same origin: scheme, host in any case and port, a missing port being the scheme's.
    @Test func anOriginIsSchemeHostAndPort() throws {
        let server = try #require(WebAddress("https://reader.example.com/api"))
        #expect(server.isSameOrigin(URL(string: "https://READER.example.com:443/covers/1.jpg")!))
        #expect(!server.isSameOrigin(URL(string: "http://reader.example.com/covers/1.jpg")!))
        #expect(!server.isSameOrigin(URL(string: "https://reader.example.com:8443/")!))
        #expect(!server.isSameOrigin(URL(string: "https://reader.example.com.evil.example/")!))
        #expect(!server.isSameOrigin(URL(string: "relative/path")!))
        #expect(try #require(WebAddress("http://[::1]:8080")).isSameOrigin(URL(string: "http://[::1]:8080/x")!))
    }
}
