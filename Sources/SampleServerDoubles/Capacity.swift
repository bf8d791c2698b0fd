/// `--capacity N`: the server works on N requests at once and the rest wait their turn, in order,
/// as behind one Rails process with N threads. Waiting adds to an answer's time and more in flight
/// gains nothing: the crawl's adaptive concurrency is measured against this.
actor ServerCapacity {
    let slots: Int
    private var busy = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// The most requests that were waiting at once.
    private(set) var longestQueue = 0

    init(slots: Int) {
        self.slots = max(1, slots)
    }

    func acquire() async {
        if busy < slots {
            busy += 1
            return
        }
        await withCheckedContinuation { continuation in
            waiting.append(continuation)
            longestQueue = max(longestQueue, waiting.count)
        }
    }

    /// Hands the slot to the longest waiting request, or frees it.
    func release() {
        if waiting.isEmpty {
            busy -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }

    /// Runs `work` in a slot.
    func serving<Result: Sendable>(_ work: @Sendable () async throws -> Result) async throws -> Result {
        await acquire()
        do {
            let result = try await work()
            release()
            return result
        } catch {
            release()
            throw error
        }
    }
}
