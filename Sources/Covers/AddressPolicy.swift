import Foundation
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a third-party cover URL may lead: not to this machine, the local network or link-local
/// addresses (a hostile image_url must not make the tool probe them). The Reader server's own
/// origin, and where it redirects to, are trusted wherever they are.
enum AddressPolicy {
    /// Why a host may not be fetched from, or nil when it may.
    static func refusal(forHost host: String) async -> String? {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare.lowercased() == "localhost" || bare.lowercased().hasSuffix(".localhost") {
            return "\(host) is this machine"
        }
        let addresses = await resolve(bare)
        // Unresolved now, it could resolve to anything when the request is made.
        guard !addresses.isEmpty else { return "\(host) does not resolve" }
        for address in addresses {
            if let kind = classify(address) { return "\(host) is a \(kind) address" }
        }
        return nil
    }

    enum Address: Equatable {
        case v4([UInt8])
        case v6([UInt8])
    }

    static func classify(_ address: Address) -> String? {
        switch address {
        case .v4(let b):
            if b[0] == 127 { return "loopback" }
            if b[0] == 10 || (b[0] == 172 && (16...31).contains(b[1])) || (b[0] == 192 && b[1] == 168) { return "private" }
            if b[0] == 100 && (64...127).contains(b[1]) { return "private" }
            if b[0] == 169 && b[1] == 254 { return "link-local" }
            if b[0] == 0 || b[0] >= 224 { return "reserved" }
            return nil
        case .v6(let b):
            if b == [UInt8](repeating: 0, count: 15) + [1] { return "loopback" }
            if b.allSatisfy({ $0 == 0 }) { return "reserved" }
            if b[0] & 0xFE == 0xFC { return "private" }
            if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return "link-local" }
            if b[0] == 0xFF { return "reserved" }
            // IPv4-mapped: judge the IPv4 address inside.
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return classify(.v4(Array(b[12...]))) }
            return nil
        }
    }

    /// getaddrinfo, off the concurrency pool (it blocks).
    static func resolve(_ host: String) async -> [Address] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var hints = addrinfo()
                hints.ai_family = AF_UNSPEC
                #if canImport(Glibc)
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
                #else
                hints.ai_socktype = SOCK_STREAM
                #endif
                var result: UnsafeMutablePointer<addrinfo>?
                guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else {
                    continuation.resume(returning: [])
                    return
                }
                defer { freeaddrinfo(first) }
                var addresses: [Address] = []
                var current: UnsafeMutablePointer<addrinfo>? = first
                while let entry = current {
                    if let socketAddress = entry.pointee.ai_addr {
                        if entry.pointee.ai_family == AF_INET {
                            var ipv4 = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                            addresses.append(.v4(withUnsafeBytes(of: &ipv4) { Array($0) }))
                        } else if entry.pointee.ai_family == AF_INET6 {
                            var ipv6 = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                            addresses.append(.v6(withUnsafeBytes(of: &ipv6) { Array($0) }))
                        }
                    }
                    current = entry.pointee.ai_next
                }
                continuation.resume(returning: addresses)
            }
        }
    }
}

/// `AddressPolicy`'s verdict on each host, asked once: the covers of one host wait for the first
/// lookup rather than each making their own.
final class HostVerdicts: Sendable {
    private let verdicts = NIOLockedValueBox<[String: Task<String?, Never>]>([:])

    func refusal(forHost host: String) async -> String? {
        let key = host.lowercased()
        let lookup = verdicts.withLockedValue { verdicts in
            if let known = verdicts[key] { return known }
            let lookup = Task { await AddressPolicy.refusal(forHost: host) }
            verdicts[key] = lookup
            return lookup
        }
        return await lookup.value
    }
}
