// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "reader-snapshot",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "reader-snapshot", targets: ["reader-snapshot"]),
        // The tests' and benchmarks' sample server and benchmarks: built beside the tool, never installed.
        .executable(name: "reader-snapshot-dev", targets: ["reader-snapshot-dev"]),
    ],
    dependencies: [
        // 1.8.1: the commands' grouped options and the manual plugin's output as the tool uses them.
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.21.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.65.0"),
        // HTTP's types, as Hummingbird's requests and responses carry them (the sample server).
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-algorithms.git", from: "1.2.0"),
        // --metrics-file's text format (HELP, TYPE, labels escaped) as Prometheus' own Swift client writes it.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // cmark-gfm and its GFM extensions, from Debian's libcmark-gfm-dev / -extensions-dev.
        .systemLibrary(
            name: "CCmarkGFM",
            pkgConfig: "libcmark-gfm",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"]), .brew(["cmark-gfm"])]
        ),
        // libxml2's HTML parser, for the rich-text notes.
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        // libvips, for covers' thumbnails, from Debian's libvips-dev: its headers (GLib's through
        // pkg-config) at build time; the library itself is opened with dlopen when the first image
        // is made (CThumbnail's vips_functions.h), since linked it costs every run 18 MB.
        .systemLibrary(
            name: "CVips",
            pkgConfig: "gobject-2.0",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]
        ),
        // libvips' variadic operations, behind calls Swift can make.
        .target(name: "CThumbnail", dependencies: ["CVips"],
                cSettings: [.unsafeFlags(["-I/opt/homebrew/include", "-I/usr/local/include"], .when(platforms: [.macOS]))]),
        // ICU's plural rules and collation (the pages' languages), from Debian's libicu-dev.
        // Opened with dlopen when a language first needs it (English never does): libicu-dev's
        // headers at build time, its libraries at run time.
        .target(name: "CICU"),
        // Swaps the new snapshot into place in one step.
        .target(name: "CFileSwap"),
        // The data goes one way, and each target sees only those it names:
        // Support ← ReaderAPI, Notes ← LibraryArchive ← Thumbnails, SnapshotStore ← Covers ← Crawl, Covers ← Enrich; SnapshotStore ← PrivateCatalog ← Site, Publish; LibraryArchive ← Timeline ← Site; Site, History, Vault, Publish ← Export ← the CLI; Publish ← the CLI.
        // Plain helpers every step uses: untrusted text, JSON values, spill files, every core.
        .target(name: "Support", dependencies: [.product(name: "Logging", package: "swift-log"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        // The Reader API: client, endpoints, answers, errors, and the one fetch policy.
        .target(
            name: "ReaderAPI",
            dependencies: ["Support", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio")]
        ),
        // A note: the server's rich text (libxml2) → Markdown → HTML (cmark-gfm).
        .target(name: "Notes", dependencies: ["CCmarkGFM", "CLibXML2", "Support"]),
        // The library as data, and library.json's layout, written and read.
        .target(name: "LibraryArchive", dependencies: ["Notes", "Support", .product(name: "Algorithms", package: "swift-algorithms")]),
        // Where a snapshot is written: staging, the swap, dated snapshots, the state between runs.
        .target(
            name: "SnapshotStore",
            dependencies: ["CFileSwap", "LibraryArchive", "Support", .product(name: "Algorithms", package: "swift-algorithms"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]
        ),
        // Covers' thumbnails at the sizes the pages show (libvips).
        .target(name: "Thumbnails", dependencies: ["CThumbnail", "LibraryArchive", "Support"]),
        // The images link previews show (1200 x 630): what each shows, its name, drawn once.
        .target(
            name: "ShareCards",
            dependencies: ["LibraryArchive", "Notes", "SnapshotStore", "Support", "Thumbnails", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // A cover's download: where it may be fetched from, its checks, its file and its thumbnails.
        .target(
            name: "Covers",
            dependencies: ["LibraryArchive", "ReaderAPI", "SnapshotStore", "Support", "Thumbnails",
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                           .product(name: "NIOCore", package: "swift-nio")]
        ),
        // Walks every shelf, book and cover, and makes the books.
        .target(
            name: "Crawl",
            dependencies: ["Covers", "LibraryArchive", "Notes", "ReaderAPI", "ShareCards", "SnapshotStore", "Support", "Thumbnails",
                           .product(name: "Logging", package: "swift-log")]
        ),
        // --enrich openlibrary: what Open Library knows of a book by its ISBN, and its cover.
        .target(
            name: "Enrich",
            dependencies: ["Covers", "LibraryArchive", "ReaderAPI", "SnapshotStore", "Support", "Thumbnails",
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOCore", package: "swift-nio")]
        ),
        // A catalog for friends only: the share password's keys (PBKDF2, HKDF), each file sealed
        // with AES-256-GCM under an opaque name, and the door a visitor opens it by.
        .target(
            name: "PrivateCatalog",
            dependencies: ["SnapshotStore", "Support",
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "CryptoExtras", package: "swift-crypto")]
        ),
        // The reading timeline: every night's events (a move, a note written), kept in the snapshot.
        .target(name: "Timeline", dependencies: ["LibraryArchive", "Support"]),
        // The HTML site, the Markdown tree, the feed, the CSV and the search index, from templates.
        .target(
            name: "Site",
            dependencies: ["CICU", "DefaultTemplates", "LibraryArchive", "Notes", "PrivateCatalog", "ShareCards", "SnapshotStore", "Support", "Thumbnails", "Timeline",
                           .product(name: "Algorithms", package: "swift-algorithms"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "Mustache", package: "swift-mustache"),
                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]
        ),
        // One export, step by step: log in, crawl, compare, render, publish.
        .target(
            name: "Export",
            dependencies: ["Crawl", "Enrich", "History", "LibraryArchive", "PrivateCatalog", "Publish", "ReaderAPI", "Site", "SnapshotStore", "Support", "Thumbnails", "Timeline", "Vault",
                           // History's module needs its C shims' module map in sight (in debug builds).
                           .product(name: "Subprocess", package: "swift-subprocess"),
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "Logging", package: "swift-log")]
        ),
        // --history: the snapshot's text kept in git, one commit a night, and read back.
        .target(
            name: "History",
            dependencies: ["LibraryArchive", "Support",
                           .product(name: "Subprocess", package: "swift-subprocess"),
                           .product(name: "SystemPackage", package: "swift-system")]
        ),
        // --markdown-into: the Markdown tree kept in a folder of the user's, their edits kept.
        .target(name: "Vault", dependencies: ["Support", .product(name: "Crypto", package: "swift-crypto")]),
        // `publish`: a snapshot's visitor files onto a static host through rclone, in an order
        // that never shows a broken link, with only what changed uploaded.
        .target(
            name: "Publish",
            dependencies: ["PrivateCatalog", "SnapshotStore", "Support",
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                           .product(name: "Subprocess", package: "swift-subprocess"),
                           .product(name: "SystemPackage", package: "swift-system")]
        ),
        // --metrics-file: a run's metrics in Prometheus' text format, for node_exporter's textfile collector.
        .target(name: "RunMetrics", dependencies: [.product(name: "Prometheus", package: "swift-prometheus")]),
        // The default templates, from the top-level Templates/ folder that users copy.
        .target(
            name: "DefaultTemplates",
            path: "Templates",
            resources: [.copy("html"), .copy("markdown"), .copy("assets"), .copy("strings")]
        ),
        .target(
            name: "SampleServer",
            dependencies: [
                "CThumbnail",
                // Its command's options, shared by the tool's sample-server and the development tool's.
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Library")]
        ),
        // The tests' and benchmarks' conditions for the sample server (latency, the real server's
        // costs, a capacity, faults, a server that hangs or goes) and the hostile library: in the
        // tests and the development tool, never in the shipped one.
        .target(
            name: "SampleServerDoubles",
            dependencies: [
                "SampleServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // What the tests and benchmarks run besides the tool (`reader-snapshot-dev`): the sample
        // server with their conditions, and the notes' and thumbnails' benchmarks.
        .executableTarget(
            name: "reader-snapshot-dev",
            dependencies: ["LibraryArchive", "Notes", "SampleServer", "SampleServerDoubles", "Support", "Thumbnails", "Timeline",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "reader-snapshot",
            dependencies: [
                // Export is the front door of export, demo and render; the other commands' modules beside it.
                "Export", "History", "Publish", "ReaderAPI", "Site", "SnapshotStore", "Support",
                "RunMetrics", "SampleServer", "Vault",
                // The options of export and render, resolved here into the values the library takes.
                "Crawl", "Enrich", "PrivateCatalog",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // What the tests share: the built tool run as a user runs it, the pages read back, the
        // sample library's hosts, fixtures. Test targets only: none of it ships.
        .target(
            name: "TestSupport",
            dependencies: ["LibraryArchive", "Notes", "SampleServer", "SampleServerDoubles",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "NIOCore", package: "swift-nio")],
            path: "Tests/TestSupport",
            resources: [.copy("Fixtures")]
        ),
        // A test target per module that has logic, as Hummingbird lays them out, and the built
        // tool's end-to-end tests in their own.
        .testTarget(name: "ReaderAPITests", dependencies: ["ReaderAPI", "Crawl", "LibraryArchive", "Support", "TestSupport",
                                                          .product(name: "AsyncHTTPClient", package: "async-http-client")]),
        .testTarget(name: "CoversTests", dependencies: ["Covers", "LibraryArchive", "ReaderAPI", "SnapshotStore", "Support", "TestSupport",
                                                        .product(name: "AsyncHTTPClient", package: "async-http-client"),
                                                        .product(name: "Crypto", package: "swift-crypto"),
                                                        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")]),
        .testTarget(name: "CrawlTests", dependencies: ["Crawl", "Covers", "LibraryArchive", "Notes", "ReaderAPI", "SampleServer", "SnapshotStore", "Support", "TestSupport",
                                                       .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "NotesTests", dependencies: ["Notes", "TestSupport"]),
        .testTarget(name: "LibraryArchiveTests", dependencies: ["LibraryArchive", "Notes", "SampleServer", "SnapshotStore", "Support", "TestSupport"]),
        .testTarget(name: "SnapshotStoreTests", dependencies: ["SnapshotStore", "LibraryArchive", "Notes", "Support", "TestSupport"]),
        .testTarget(
            name: "SiteTests",
            dependencies: ["Site", "LibraryArchive", "Notes", "SampleServer", "SnapshotStore", "Support", "TestSupport", "Thumbnails", "Timeline",
                           // PreviewTests names its covers by their hash, as the crawl does.
                           .product(name: "Crypto", package: "swift-crypto"),
                           // TemplateNamesTests asks the page views what swift-mustache asks them.
                           .product(name: "Mustache", package: "swift-mustache")]
        ),
        .testTarget(name: "ExportTests", dependencies: ["Export", "TestSupport"]),
        // The command line, parsed as the tool parses it and resolved into the values the library takes.
        .testTarget(
            name: "CommandLineTests",
            dependencies: ["reader-snapshot", "Export", "PrivateCatalog", "SampleServer", "ShareCards", "Site", "SnapshotStore", "Support", "TestSupport",
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "PublishTests", dependencies: ["Publish", "Site", "Support", "TestSupport"]),
        .testTarget(name: "PrivateCatalogTests", dependencies: ["PrivateCatalog", "Site", "SnapshotStore", "TestSupport"]),
        .testTarget(name: "SampleServerTests", dependencies: ["SampleServer", "TestSupport", .product(name: "Hummingbird", package: "hummingbird"),
                                                             .product(name: "HummingbirdTesting", package: "hummingbird")]),
        .testTarget(name: "SampleServerDoublesTests", dependencies: ["SampleServer", "SampleServerDoubles", "TestSupport",
                                                                    .product(name: "Hummingbird", package: "hummingbird"),
                                                                    .product(name: "HummingbirdTesting", package: "hummingbird")]),
        .testTarget(name: "ThumbnailsTests", dependencies: ["Thumbnails", "LibraryArchive", "SampleServer", "TestSupport"]),
        .testTarget(name: "VaultTests", dependencies: ["Vault", "SampleServer", "TestSupport"]),
        .testTarget(name: "RunMetricsTests", dependencies: ["RunMetrics", "TestSupport"]),
        .testTarget(name: "SupportTests", dependencies: ["Support", "TestSupport"]),
        .testTarget(name: "HistoryTests", dependencies: ["History", "LibraryArchive", "Notes", "Support", "TestSupport"]),
        .testTarget(name: "TimelineTests", dependencies: ["Timeline", "LibraryArchive", "Notes", "TestSupport"]),
        // OpenLibraryEnricherTests asks a Books API of its own on loopback (Hummingbird) through AsyncHTTPClient.
        .testTarget(name: "EnrichTests", dependencies: ["Enrich", "LibraryArchive", "Support", "TestSupport",
                                                        .product(name: "AsyncHTTPClient", package: "async-http-client"),
                                                        .product(name: "Hummingbird", package: "hummingbird"),
                                                        .product(name: "Logging", package: "swift-log"),
                                                        .product(name: "NIOCore", package: "swift-nio")]),
        .testTarget(name: "ShareCardsTests", dependencies: ["ShareCards"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["Export", "LibraryArchive", "PrivateCatalog", "SampleServer", "SampleServerDoubles", "ShareCards", "Site", "SnapshotStore", "Support",
                           "Thumbnails", "TestSupport", "Vault",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "Logging", package: "swift-log")]
        ),
    ]
)
