import Foundation
import Hummingbird
import HTTPTypes
import NIOCore

/// Static hosts on loopback for the publish tests, reached through rclone remotes given by
/// `RCLONE_CONFIG_NAME_*` variables: an S3 API (moto's server mode), a WebDAV server (rclone's
/// own), and a WebDAV server that refuses every write.
package struct PublishHost {
    /// The rclone remote's name, as given to `publish`.
    package var remote: String
    /// What the tool and rclone are run with: the remote's settings, and no config file of the user's.
    package var environment: [String: String]
    /// rclone 1.60 refuses an S3 remote while AWS_CA_BUNDLE is set ("LoadCustomCABundleError").
    package static let removing = ["AWS_CA_BUNDLE"]
    private var process: Process?
    private var stopServer: (@Sendable () async -> Void)?

    /// A port nobody listens on now: bound to 0, read, and let go.
    package static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw HostError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    package struct HostError: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    package static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// An S3 API on loopback (`moto_server`), with one bucket, `site`.
    package static func s3(name: String = "s3test") async throws -> PublishHost {
        guard let moto = executable("moto_server") else {
            throw HostError("moto_server is not installed: `make test-deps` installs it (python3 -m pip install 'moto[server]')")
        }
        let port = try freePort()
        let process = try start(moto, ["-H", "127.0.0.1", "-p", "\(port)"])
        let upper = name.uppercased()
        let host = PublishHost(remote: name, environment: [
            "RCLONE_CONFIG": "/nonexistent/rclone.conf",
            "RCLONE_CONFIG_\(upper)_TYPE": "s3",
            "RCLONE_CONFIG_\(upper)_PROVIDER": "Other",
            "RCLONE_CONFIG_\(upper)_ENDPOINT": "http://127.0.0.1:\(port)",
            "RCLONE_CONFIG_\(upper)_ACCESS_KEY_ID": "test-key",
            "RCLONE_CONFIG_\(upper)_SECRET_ACCESS_KEY": "test-secret",
            "RCLONE_CONFIG_\(upper)_REGION": "us-east-1",
        ], process: process)
        try await waitForPort(port, process: process, what: "moto_server")
        try await host.rclone(["mkdir", "\(name):site"])
        return host
    }

    /// A WebDAV server on loopback (`rclone serve webdav`) serving `folder`; it keeps no MD5.
    package static func webdav(serving folder: URL, name: String = "davtest") async throws -> PublishHost {
        let port = try freePort()
        let process = try start(try rcloneExecutable(), ["serve", "webdav", "--addr", "127.0.0.1:\(port)", folder.path, "--quiet"])
        try await waitForPort(port, process: process, what: "rclone serve webdav")
        return PublishHost(remote: name, environment: [
            "RCLONE_CONFIG": "/nonexistent/rclone.conf",
            "RCLONE_CONFIG_\(name.uppercased())_TYPE": "webdav",
            "RCLONE_CONFIG_\(name.uppercased())_URL": "http://127.0.0.1:\(port)",
        ], process: process)
    }

    /// Counts what a host was asked to do.
    package final class Requests: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        package init() {}
        package func count(_ method: String) { lock.withLock { counts[method, default: 0] += 1 } }
        package subscript(_ method: String) -> Int { lock.withLock { counts[method] ?? 0 } }
    }

    /// A WebDAV server whose folder holds one old file (`old.html`), and that answers every write
    /// 403 Forbidden, as a host whose token may read but not write. `requests` counts what it was asked.
    package static func refusingWrites(name: String = "refusing", requests: Requests) async throws -> PublishHost {
        let router = Router()
        router.on("/**", method: HTTPRequest.Method("PROPFIND")!) { request, _ -> Response in
            requests.count("PROPFIND")
            let folder = request.uri.path.hasSuffix("/") ? request.uri.path : request.uri.path + "/"
            let listing = """
                <?xml version="1.0" encoding="utf-8"?>
                <D:multistatus xmlns:D="DAV:">
                <D:response><D:href>\(folder)</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype>\
                <D:getlastmodified>Mon, 01 Jan 2024 00:00:00 GMT</D:getlastmodified></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
                <D:response><D:href>\(folder)old.html</D:href><D:propstat><D:prop><D:resourcetype/><D:getcontentlength>5</D:getcontentlength>\
                <D:getlastmodified>Mon, 01 Jan 2024 00:00:00 GMT</D:getlastmodified></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
                </D:multistatus>
                """
            return Response(status: .init(code: 207), headers: [.contentType: "application/xml; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: listing)))
        }
        for method in [HTTPRequest.Method.put, .delete, HTTPRequest.Method("MKCOL")!, HTTPRequest.Method("MOVE")!] {
            router.on("/**", method: method) { request, _ -> Response in
                requests.count(method.rawValue)
                requests.count("\(method.rawValue) \(request.uri.path)")
                return Response(status: .forbidden)
            }
        }
        let port = try freePort()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        let task = Task { try await app.runService() }
        try await waitForPort(port, process: nil, what: "the refusing server")
        var host = PublishHost(remote: name, environment: [
            "RCLONE_CONFIG": "/nonexistent/rclone.conf",
            "RCLONE_CONFIG_\(name.uppercased())_TYPE": "webdav",
            "RCLONE_CONFIG_\(name.uppercased())_URL": "http://127.0.0.1:\(port)",
        ])
        host.stopServer = { task.cancel(); _ = try? await task.value }
        return host
    }

    /// An rclone remote pointing at a loopback port nobody listens on.
    package static func unreachable(name: String = "gone") throws -> PublishHost {
        PublishHost(remote: name, environment: [
            "RCLONE_CONFIG": "/nonexistent/rclone.conf",
            "RCLONE_CONFIG_\(name.uppercased())_TYPE": "webdav",
            "RCLONE_CONFIG_\(name.uppercased())_URL": "http://127.0.0.1:\(try freePort())",
            // rclone tries 10 times at the lowest level and 3 at the top by default: a test waits less.
            "RCLONE_RETRIES": "1", "RCLONE_LOW_LEVEL_RETRIES": "1", "RCLONE_CONTIMEOUT": "2s",
        ])
    }

    package func stop() async {
        if let process, process.isRunning {
            // moto's server waits for its threads on SIGTERM; nothing of it needs to be kept.
            kill(process.processIdentifier, SIGKILL)
            await ToolRunner.wait(for: process)
        }
        await stopServer?()
    }

    package static func rcloneExecutable() throws -> String {
        guard let rclone = executable("rclone") else { throw HostError("rclone is not installed: `make test-deps` installs it") }
        return rclone
    }

    /// Runs rclone against the host, as the test's own eyes: what is there, and with which headers.
    @discardableResult
    package func rclone(_ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.rcloneExecutable())
        process.arguments = ["--quiet"] + arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        for key in Self.removing { env.removeValue(forKey: key) }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let outData = PipeReader(out), errData = PipeReader(err)
        try process.run()
        await ToolRunner.wait(for: process)
        let printed = String(decoding: outData.wait(), as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw HostError("rclone \(arguments.joined(separator: " ")): \(String(decoding: errData.wait(), as: UTF8.self))")
        }
        return printed
    }

    /// Every file under `path` on the host with its bytes, downloaded (so that the comparison
    /// holds for hosts that keep no MD5 too).
    package func files(under path: String) async throws -> [String: Data] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("publish-download-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await rclone(["copy", "\(remote):\(path)", folder.path])
        return SiteInspector(root: folder).contents()
    }

    /// Runs the tool with this host's remote.
    package func run(_ arguments: [String]) async throws -> ToolRun {
        try await ToolRunner.run(arguments, environment: environment, removing: Self.removing)
    }

    private static func start(_ executable: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for key in removing { env.removeValue(forKey: key) }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    private static func waitForPort(_ port: Int, process: Process?, what: String) async throws {
        for _ in 0..<300 {
            if let process, !process.isRunning { throw HostError("\(what) stopped at once") }
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(socket)
            if connected { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        process?.terminate()
        throw HostError("\(what) did not start listening on port \(port) within 30 s")
    }
}

extension PublishHost {
    fileprivate init(remote: String, environment: [String: String], process: Process?) {
        self.remote = remote
        self.environment = environment
        self.process = process
    }
}
