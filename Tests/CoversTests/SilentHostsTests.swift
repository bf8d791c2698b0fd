import AsyncHTTPClient
import NIOCore
import NIOPosix
import TestSupport
import Testing
@testable import Covers
@testable import Covers
@testable import ReaderAPI
import Support

/// A cover host whose connection times out is tried again a few times (this machine may have been
/// too busy to finish the handshake), and then taken as gone; a refusal is final at once.
@Suite struct SilentHostsTests {
    @Test func aConnectTimeoutIsToldApartFromARefusal() {
        let redactor = Redactor(secrets: [])
        let timeout = FetchPolicy.transport(HTTPClientError.connectTimeout, redactor: redactor)
        #expect(timeout.couldNotConnect && timeout.connectTimedOut && timeout.description == "timed out")
        #expect(FetchPolicy.transport(ChannelError.connectTimeout(.seconds(3)), redactor: redactor).connectTimedOut)
        let refused = FetchPolicy.transport(IOError(errnoCode: ECONNREFUSED, reason: "connect"), redactor: redactor)
        #expect(refused.couldNotConnect && !refused.connectTimedOut && refused.description == "connection refused")
        // A read that times out is a host that answered and stalled: retried as before, not counted.
        let read = FetchPolicy.transport(HTTPClientError.readTimeout, redactor: redactor)
        #expect(!read.couldNotConnect && !read.connectTimedOut)
    }

    @Test func aHostSilentThreeTimesInARowIsTakenAsGone() {
        let hosts = SilentHosts()
        #expect((1...SilentHosts.retried).map { _ in hosts.timedOut("storage.example") } == [true, true, true])
        #expect(!hosts.timedOut("storage.example"))
        #expect(!hosts.timedOut("STORAGE.example"), "host names are compared without case")
        // Another host has its own count.
        #expect(hosts.timedOut("covers.example"))
    }

    @Test func anAnswerBetweenTimeoutsStartsTheCountAgain() {
        let hosts = SilentHosts()
        for _ in 1...SilentHosts.retried { #expect(hosts.timedOut("storage.example")) }
        hosts.answered("Storage.Example")
        for _ in 1...SilentHosts.retried { #expect(hosts.timedOut("storage.example")) }
        #expect(!hosts.timedOut("storage.example"))
    }
}
