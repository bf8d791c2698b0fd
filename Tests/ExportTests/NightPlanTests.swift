import Export
import TestSupport
import Testing

/// When a night leaves its snapshot, links it or renders: the rule behind "a night with no change
/// on the server rewrites no file and makes no commit", decided from plain facts.
@Suite struct NightPlanTests {
    static let quietNight = NightPlan.Facts(libraryUnchanged: true, reuseUnchanged: true, hasLastSnapshot: true,
                                                  sameRendering: true, lastSnapshotIntact: true, dated: false)

    @Test func aNightWithNothingChangedLeavesTheSnapshotAsItWas() {
        #expect(NightPlan.decide(Self.quietNight) == .leaveAsItWas)
        #expect(!NightPlan.leaveAsItWas.writesNewFiles)
    }

    @Test func withKeepANightWithNothingChangedLinksYesterdaysFiles() {
        var facts = Self.quietNight
        facts.dated = true
        #expect(NightPlan.decide(facts) == .linkLastSnapshot)
        #expect(!NightPlan.linkLastSnapshot.writesNewFiles, "a linked night has nothing to commit")
    }

    @Test func aChangedLibraryRendersReusingUnchangedPages() {
        var facts = Self.quietNight
        facts.libraryUnchanged = false
        #expect(NightPlan.decide(facts) == .render(reusingPages: true))
        facts.dated = true
        #expect(NightPlan.decide(facts) == .render(reusingPages: true))
        #expect(NightPlan.render(reusingPages: true).writesNewFiles)
    }

    @Test func fullRendersEveryPageWhateverChanged() {
        var facts = Self.quietNight
        facts.reuseUnchanged = false
        #expect(NightPlan.decide(facts) == .render(reusingPages: false))
        facts.dated = true
        #expect(NightPlan.decide(facts) == .render(reusingPages: false))
    }

    @Test func otherTemplatesADamagedOrMissingLastSnapshotRenderAgain() {
        for change: (inout NightPlan.Facts) -> Void in [{ $0.sameRendering = false }, { $0.lastSnapshotIntact = false },
                                                            { $0.hasLastSnapshot = false }] {
            var facts = Self.quietNight
            change(&facts)
            #expect(NightPlan.decide(facts) == .render(reusingPages: true), "\(facts)")
        }
    }
}
