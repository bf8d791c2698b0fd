import Testing
@testable import ReaderSnapshotCore
@Test func probe() { #expect(!probeTemplates().isEmpty) }
