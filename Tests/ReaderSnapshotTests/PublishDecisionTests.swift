import Export
import Testing

/// When a night leaves its snapshot, links it or renders: the rule behind "a night with no change
/// on the server rewrites no file and makes no commit", decided from plain facts.
@Suite struct PublishDecisionTests {
    static let quietNight = PublishDecision.Facts(libraryUnchanged: true, reuseUnchanged: true, hasLastSnapshot: true,
                                                  sameRendering: true, lastSnapshotIntact: true, dated: false)

    @Test func aNightWithNothingChangedLeavesTheSnapshotAsItWas() {
        #expect(PublishDecision.decide(Self.quietNight) == .leaveAsItWas)
        #expect(!PublishDecision.leaveAsItWas.writesNewFiles)
    }

    @Test func withKeepANightWithNothingChangedLinksYesterdaysFiles() {
        var facts = Self.quietNight
        facts.dated = true
        #expect(PublishDecision.decide(facts) == .linkLastSnapshot)
        #expect(!PublishDecision.linkLastSnapshot.writesNewFiles, "a linked night has nothing to commit")
    }

    @Test func aChangedLibraryRendersReusingUnchangedPages() {
        var facts = Self.quietNight
        facts.libraryUnchanged = false
        #expect(PublishDecision.decide(facts) == .render(reusingPages: true))
        facts.dated = true
        #expect(PublishDecision.decide(facts) == .render(reusingPages: true))
        #expect(PublishDecision.render(reusingPages: true).writesNewFiles)
    }

    @Test func fullRendersEveryPageWhateverChanged() {
        var facts = Self.quietNight
        facts.reuseUnchanged = false
        #expect(PublishDecision.decide(facts) == .render(reusingPages: false))
        facts.dated = true
        #expect(PublishDecision.decide(facts) == .render(reusingPages: false))
    }

    @Test func otherTemplatesADamagedOrMissingLastSnapshotRenderAgain() {
        for change: (inout PublishDecision.Facts) -> Void in [{ $0.sameRendering = false }, { $0.lastSnapshotIntact = false },
                                                            { $0.hasLastSnapshot = false }] {
            var facts = Self.quietNight
            change(&facts)
            #expect(PublishDecision.decide(facts) == .render(reusingPages: true), "\(facts)")
        }
    }
}
