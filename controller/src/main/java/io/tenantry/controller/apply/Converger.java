package io.tenantry.controller.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.tenantry.api.WellKnown;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Makes a tenant's owned objects match the desired ones in two steps: {@link #plan} compares with
 * the cache (no API call), {@link #execute} writes what differs and deletes what is owned but no
 * longer desired. The namespace and Secrets are never deleted here (they hold customer data;
 * only purging a tenant removes them), except copies of template Secrets that left the template.
 * A Job is never rewritten (its pod template is immutable): it is created, then left to finish.
 * A RoleBinding whose role must change is deleted and created again (its roleRef is immutable);
 * one that named a Role of the tenant namespace, as earlier versions made (the access levels are
 * ClusterRoles now), takes that Role with it.
 */
public final class Converger {

  private final ObjectWriter writer;

  public Converger(ObjectWriter writer) {
    this.writer = writer;
  }

  public static ChangePlan plan(List<HasMetadata> desired, List<HasMetadata> owned) {
    return plan(desired, owned, Set.of());
  }

  /** @param kept owned objects to leave as they are: neither written nor deleted */
  public static ChangePlan plan(List<HasMetadata> desired, List<HasMetadata> owned, Set<ObjectKey> kept) {
    Map<ObjectKey, HasMetadata> existing = new HashMap<>();
    owned.forEach(o -> existing.put(ObjectKey.of(o), o));
    existing.keySet().removeAll(kept);
    List<ChangePlan.Write> writes = new ArrayList<>();
    for (HasMetadata want : desired) {
      HasMetadata have = existing.remove(ObjectKey.of(want));
      if (want instanceof Job && have != null) {
        continue;
      }
      keepImmutableFields(want, have);
      if (!Applier.upToDate(want, have)) {
        writes.add(new ChangePlan.Write(want, have));
      }
    }
    List<HasMetadata> deletes = new ArrayList<>(existing.values().stream()
        .filter(o -> !(o instanceof Namespace) && (!(o instanceof Secret) || isTemplateCopy(o))
            && o.getMetadata().getDeletionTimestamp() == null)
        .toList());
    writes.stream().filter(Converger::replaces).map(w -> formerRole((RoleBinding) w.cached())).filter(Objects::nonNull)
        .forEach(deletes::add);
    return new ChangePlan(writes, List.copyOf(deletes));
  }

  /** Carries out the plan, except writes of objects {@code held} back; returns the number of calls made. */
  public int execute(ChangePlan plan, Predicate<HasMetadata> held) {
    int calls = 0;
    for (ChangePlan.Write write : plan.writes()) {
      if (held.test(write.desired())) {
        continue;
      }
      if (replaces(write)) {
        writer.delete(write.cached());
        calls++;
      }
      writer.write(write.desired(), write.cached() == null || replaces(write));
      calls++;
    }
    for (HasMetadata leftover : plan.deletes()) {
      writer.delete(leftover);
      calls++;
    }
    return calls;
  }

  /** Whether the write changes a RoleBinding's roleRef, which the API server refuses: the binding is made again. */
  static boolean replaces(ChangePlan.Write write) {
    return write.desired() instanceof RoleBinding want && write.cached() instanceof RoleBinding have
        && !(Objects.equals(want.getRoleRef().getKind(), have.getRoleRef().getKind())
            && Objects.equals(want.getRoleRef().getName(), have.getRoleRef().getName()));
  }

  /** The Role of the binding's namespace that {@code binding} names, or null when it names a ClusterRole. */
  private static Role formerRole(RoleBinding binding) {
    if (!"Role".equals(binding.getRoleRef().getKind())) {
      return null;
    }
    return new RoleBuilder().withNewMetadata().withNamespace(binding.getMetadata().getNamespace())
        .withName(binding.getRoleRef().getName()).endMetadata().build();
  }

  private static boolean isTemplateCopy(HasMetadata secret) {
    return secret.getMetadata().getLabels() != null && "copy".equals(secret.getMetadata().getLabels().get(WellKnown.TEMPLATE));
  }

  /**
   * A StatefulSet's volume claim templates cannot change once created (the API server refuses
   * it); the existing ones are kept, so a changed storage size applies to new databases only.
   */
  static void keepImmutableFields(HasMetadata desired, HasMetadata cached) {
    if (desired instanceof StatefulSet want && cached instanceof StatefulSet have) {
      want.getSpec().setVolumeClaimTemplates(have.getSpec().getVolumeClaimTemplates().stream()
          .map(t -> new PersistentVolumeClaimBuilder(t).withStatus(null).build())
          .toList());
    }
  }
}
