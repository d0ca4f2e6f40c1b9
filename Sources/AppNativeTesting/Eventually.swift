/// The one way tests wait for state that settles asynchronously (a counter a worker thread
/// updates, a descriptor another process closes, a log line a child writes): polls `condition`
/// until it holds and returns true, or returns false once `timeout` has passed.
///
/// The timeout is a bound that keeps a broken build from hanging, not a timing assertion: it is
/// generous because the suites share two loaded cores, and a passing run never waits for it.
/// Assert on the result (`#expect(await eventually { … })`) and report what was last seen.
/// A condition that does blocking I/O runs it off the cooperative pool (it may await).
public func eventually(
    timeout: Duration = .seconds(30),
    pollingEvery interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        // A cancelled test stops waiting; the condition's last answer stands.
        guard (try? await Task.sleep(for: interval)) != nil else { return try await condition() }
    }
}
