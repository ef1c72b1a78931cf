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
 */
public final class BackupSlots {

  private final int slots;
  private final Consumer<String> wakeTenant;
  private final Set<Key> holders = new LinkedHashSet<>();
  private final Set<Key> waiting = new LinkedHashSet<>();

  /** A database of a tenant. */
  public record Key(String tenant, String database) {
  }

  public BackupSlots(int slots, Consumer<String> wakeTenant) {
    this.slots = slots;
    this.wakeTenant = wakeTenant;
  }

  /** Takes a free slot for {@code key} if there is one (first come, first served); else queues it. */
  public synchronized boolean acquire(Key key) {
    if (holders.contains(key)) {
      return true;
    }
    Key first = waiting.stream().findFirst().orElse(key);
    if (holders.size() < slots && first.equals(key)) {
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
    holders.add(key);
  }

  /** Frees {@code key}'s slot (or its place in line) and wakes the next in line. */
  public synchronized void release(Key key) {
    boolean freed = holders.remove(key);
    waiting.remove(key);
    if (freed && holders.size() < slots) {
      waiting.stream().findFirst().ifPresent(next -> wakeTenant.accept(next.tenant()));
    }
  }

  /** Forgets every database of a tenant that is gone. */
  public synchronized void forget(String tenant) {
    for (Key key : Set.copyOf(holders)) {
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
}
