import Foundation

extension APIClient {
    /// Revalidates the stored `entry` a request was just answered with (`stale-while-revalidate`,
    /// RFC 5861 §3), in a task of its own: a conditional request for `settings`, whose answer is
    /// stored (or, for a `304`, updates the entry) as any network answer would be. One at a time
    /// per cache key: while one runs, later stale answers start none. A failure is logged, never
    /// reported: the caller already has its answer.
    func revalidateInBackground(_ settings: RequestSettings, entry: CachedResponse, key: String) {
        var quiet = settings
        quiet.uploadProgress = nil
        quiet.downloadProgress = nil
        let settings = quiet
        backgroundRevalidations.withLock { running in
            guard running[key] == nil else { return }
            // Inserted under the lock the task's own removal takes, so the removal comes after.
            running[key] = Task { [self] in
                await revalidate(settings, entry: entry)
                backgroundRevalidations.withLock { _ = $0.removeValue(forKey: key) }
            }
        }
    }

    private func revalidate(_ settings: RequestSettings, entry: CachedResponse) async {
        guard let plan = try? cachePlan(for: settings) else { return }
        // In a shared store, one user revalidates in the background; the others go on serving.
        let claim: CacheRevalidationClaim?
        switch await plan.claimRevalidation(waiting: false, logger: configuration.logger) {
        case .granted(let granted): claim = granted
        case .heldElsewhere: return
        case .failed: claim = nil
        }
        defer { claim?.release() }
        do throws(CourierError) {
            try await recorded(settings, reportsFailure: false) { record throws(CourierError) in
                var conditional = settings
                if conditional.addConditions(for: entry) { record.revalidating = entry }
                let response = try await perform(conditional, record: &record)
                if !revalidatedUnchanged(response, record: record, freshness: plan.freshness) {
                    await self.record(response, method: settings.method, plan: plan)
                }
                if record.revalidating != nil, record.statusCode == 304 { recordCache("revalidated", record) }
                _ = finish(&record, source: .network, statusCode: response.statusCode)
            }
        } catch {
            configuration.logger.debug(
                "Courier \(error.requestID.map { "\($0)" } ?? "") could not revalidate a stale cached response in the background: \(error.message)")
        }
    }

    /// Returns when the background revalidations running now have ended.
    package func backgroundRevalidationsEnded() async {
        for task in backgroundRevalidations.withLock({ Array($0.values) }) { await task.value }
    }
}
