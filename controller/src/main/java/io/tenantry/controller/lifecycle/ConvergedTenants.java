package io.tenantry.controller.lifecycle;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per tenant, the cache fingerprint of its last sync that found it converged and wrote nothing: a
 * sync that finds the same fingerprint ends at once, so a resync of a converged tenant reads a few
 * cache entries and makes no call. Thread-safe; the queue never syncs one tenant on two workers.
 */
public final class ConvergedTenants {

  private final Map<String, Long> fingerprints = new ConcurrentHashMap<>();

  boolean unchanged(String tenant, long fingerprint) {
    Long last = fingerprints.get(tenant);
    return last != null && last == fingerprint;
  }

  void remember(String tenant, long fingerprint) {
    fingerprints.put(tenant, fingerprint);
  }

  void forget(String tenant) {
    fingerprints.remove(tenant);
  }

  /** Forgets every tenant, so that the next sync of each compares every object again (as after a restart). */
  public void clear() {
    fingerprints.clear();
  }
}
