package io.tenantry.controller.backup;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The bound on backup Jobs running at once in the cluster ({@code backups.maxConcurrent}), so a
 * fleet due at the same hour does not load every node and the store at once. A database holds a
 * slot from its Job's creation until its commit; one that finds none is remembered in arrival
 * order and its tenant woken (re-queued) when a slot frees, so no worker ever waits. Jobs found
 * running after a restart take their slots back ({@link #hold}), even beyond the bound: they run
 * anyway.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>At most {@code slots} databases hold or are promised a slot, but for those {@link #hold}
 *       counts beyond it.
 *   <li>A freed slot is promised (reserved) to the first in line, whose tenant is woken; no one
 *       else takes it. Each free slot wakes one tenant: slots freed before the first woken tenant
 *       syncs wake the next in line, not the same one again.
 *   <li>A woken database that does not take its slot (no longer due, its tenant gone) passes it on
 *       to the next in line when it {@link #release}s it, as {@code RolloutGate} does.
 * </ul>
 */
public final class BackupSlots {

  private final int slots;
  private final Consumer<String> wakeTenant;
  private final Set<Key> holders = new LinkedHashSet<>();
  /** Woken databases a free slot is kept for until their tenant syncs. */
  private final Set<Key> reserved = new LinkedHashSet<>();
  /** Databases waiting for a slot, in arrival order. */
  private final Set<Key> waiting = new LinkedHashSet<>();

  /** A database of a tenant. */
  public record Key(String tenant, String database) {
  }

  public BackupSlots(int slots, Consumer<String> wakeTenant) {
    this.slots = slots;
    this.wakeTenant = wakeTenant;
  }

  /** Takes the slot kept for {@code key}, or a free one if no one waits (first come, first served); else queues it. */
  public synchronized boolean acquire(Key key) {
    if (holders.contains(key)) {
      return true;
    }
    if (reserved.remove(key) || holders.size() + reserved.size() < slots && waiting.isEmpty()) {
      waiting.remove(key);
      holders.add(key);
      return true;
    }
    waiting.add(key);
    return false;
  }

  /** Records that {@code key}'s Job runs, whatever the bound. */
  public synchronized void hold(Key key) {
    waiting.remove(key);
    reserved.remove(key);
    holders.add(key);
  }

  /** Frees {@code key}'s slot (or the one kept for it, or its place in line) and wakes the next in line. */
  public synchronized void release(Key key) {
    boolean freed = holders.remove(key) | reserved.remove(key);
    waiting.remove(key);
    if (freed) {
      wakeNext();
    }
  }

  /** Forgets every database of a tenant that is gone. */
  public synchronized void forget(String tenant) {
    for (Key key : Set.copyOf(holders)) {
      if (key.tenant().equals(tenant)) {
        release(key);
      }
    }
    for (Key key : Set.copyOf(reserved)) {
      if (key.tenant().equals(tenant)) {
        release(key);
      }
    }
    waiting.removeIf(key -> key.tenant().equals(tenant));
  }

  public synchronized int running() {
    return holders.size();
  }

  public synchronized int queued() {
    return waiting.size();
  }

  /** Promises each free slot to the next in line and wakes its tenant. */
  private void wakeNext() {
    while (holders.size() + reserved.size() < slots && !waiting.isEmpty()) {
      Key next = waiting.iterator().next();
      waiting.remove(next);
      reserved.add(next);
      wakeTenant.accept(next.tenant());
    }
  }
}
