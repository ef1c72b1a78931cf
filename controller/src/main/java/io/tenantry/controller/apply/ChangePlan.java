package io.tenantry.controller.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;
import java.util.function.Predicate;

/**
 * What converging a tenant takes, computed from the cache alone: the desired objects whose cached
 * copy is missing or differs in fields the operator owns, and the owned objects no longer desired.
 */
public record ChangePlan(List<Write> writes, List<HasMetadata> deletes) {

  /**
   * A desired object to write; {@code cached} is its current copy, or null when it must be created;
   * {@code handover}, when not null, is applied first under a field manager of its own (an
   * autoscaled app's replicas, see {@code autoscaling/Autoscaling}).
   */
  public record Write(HasMetadata desired, HasMetadata cached, HasMetadata handover) {

    public Write(HasMetadata desired, HasMetadata cached) {
      this(desired, cached, null);
    }
  }

  public boolean isEmpty() {
    return writes.isEmpty() && deletes.isEmpty();
  }

  /** Whether any write is of an object matching {@code filter}. */
  public boolean writes(Predicate<HasMetadata> filter) {
    return writes.stream().anyMatch(w -> filter.test(w.desired()));
  }
}
