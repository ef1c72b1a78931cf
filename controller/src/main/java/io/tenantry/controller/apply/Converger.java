package io.tenantry.controller.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.WellKnown;
import io.tenantry.controller.autoscaling.Autoscaling;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Makes a tenant's owned objects match the desired ones in two steps: {@link #plan} compares with
 * the cache (no API call), {@link #execute} writes what differs and deletes what is owned but no
 * longer desired. The namespace, Secrets and volume claims are never deleted here (they hold
 * customer data; only purging a tenant removes them, and a major upgrade its old volume), except
 * copies of template Secrets that left the template.
 * A Job is never rewritten (its pod template is immutable): it is created, then left to finish.
 * A StatefulSet whose volume claims change (a major upgrade) is deleted and created again;
 * A RoleBinding whose role must change is deleted and created again (its roleRef is immutable);
 * one that named a Role of the tenant namespace, as earlier versions made (the access levels are
 * ClusterRoles now), takes that Role with it. So is a Secret whose type differs (also immutable).
 *
 * <p>One refused write does not stop the others: each object is written on its own, and what the
 * API server refused is returned for the caller to report and retry. What stops the execution is
 * what every other write would meet too: a namespace that cannot be created, or an API server
 * that does not answer or asks to slow down ({@link #refusedObject}).
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
    Map<ObjectKey, HasMetadata> existing = new LinkedHashMap<>(); // Deletes in the cache's order, not a hash order.
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
        writes.add(new ChangePlan.Write(want, have, Autoscaling.handover(want, have).orElse(null)));
      }
    }
    List<HasMetadata> deletes = new ArrayList<>(existing.values().stream()
        .filter(o -> !(o instanceof Namespace) && !(o instanceof PersistentVolumeClaim)
            && (!(o instanceof Secret) || isTemplateCopy(o))
            && o.getMetadata().getDeletionTimestamp() == null)
        .toList());
    writes.stream().filter(Converger::replaces).filter(w -> w.cached() instanceof RoleBinding)
        .map(w -> formerRole((RoleBinding) w.cached())).filter(Objects::nonNull)
        .forEach(deletes::add);
    return new ChangePlan(writes, List.copyOf(deletes));
  }

  /**
   * Carries out the plan, except writes of objects {@code held} back, each object on its own;
   * returns what failed, in plan order (empty when everything was written).
   *
   * @throws KubernetesClientException when the namespace cannot be created, or the API server does not
   *     answer a write with a verdict on the object
   */
  public List<WriteFailure> execute(ChangePlan plan, Predicate<HasMetadata> held) {
    List<WriteFailure> failures = new ArrayList<>();
    // An HPA no longer wanted goes first: it must not scale the Deployment that gets fixed replicas back below.
    delete(plan.deletes().stream().filter(o -> o instanceof HorizontalPodAutoscaler).toList(), failures);
    for (ChangePlan.Write write : plan.writes()) {
      if (held.test(write.desired())) {
        continue;
      }
      try {
        if (replaces(write)) {
          writer.delete(write.cached());
        }
        if (write.handover() != null) {
          writer.handOver(write.handover());
        }
        writer.write(write.desired(), write.cached() == null || replaces(write));
      } catch (KubernetesClientException e) {
        if (!refusedObject(e) || write.desired() instanceof Namespace && write.cached() == null) {
          throw e;
        }
        failures.add(WriteFailure.of(ObjectKey.of(write.desired()), e));
      }
    }
    delete(plan.deletes().stream().filter(o -> !(o instanceof HorizontalPodAutoscaler)).toList(), failures);
    return failures;
  }

  private void delete(List<HasMetadata> objects, List<WriteFailure> failures) {
    for (HasMetadata leftover : objects) {
      try {
        writer.delete(leftover);
      } catch (KubernetesClientException e) {
        if (!refusedObject(e)) {
          throw e;
        }
        failures.add(WriteFailure.of(ObjectKey.of(leftover), e));
      }
    }
  }

  /**
   * Whether the API server answered with a verdict on this one object: a 4xx (invalid, forbidden,
   * refused by an admission policy) or a 500 (an admission webhook that failed on it). No answer,
   * 429 and the other 5xx concern every write alike; going on would only wait out the client's
   * retries once per object.
   */
  static boolean refusedObject(KubernetesClientException error) {
    int code = error.getCode();
    return code >= 400 && code < 500 && code != 429 || code == 500;
  }

  /**
   * Whether the object is made again (deleted, then created) rather than applied: the API server
   * refuses to change a RoleBinding's roleRef, a Secret's type or a StatefulSet's volume claims in
   * place. A StatefulSet's claims change only for a major upgrade's fresh volume, or back to the old
   * one; its claims themselves are kept (its retention policy), the pods go with it.
   */
  static boolean replaces(ChangePlan.Write write) {
    if (write.desired() instanceof Secret want && write.cached() instanceof Secret have) {
      return want.getType() != null && !want.getType().equals(have.getType());
    }
    if (write.desired() instanceof StatefulSet want && write.cached() instanceof StatefulSet have) {
      return !sameClaims(want, have);
    }
    return write.desired() instanceof RoleBinding want && write.cached() instanceof RoleBinding have
        && !(Objects.equals(want.getRoleRef().getKind(), have.getRoleRef().getKind())
            && Objects.equals(want.getRoleRef().getName(), have.getRoleRef().getName()));
  }

  /** Whether two StatefulSets mount the same volume claims (by name): else one replaces the other. */
  private static boolean sameClaims(StatefulSet a, StatefulSet b) {
    return claimNames(a).equals(claimNames(b));
  }

  private static List<String> claimNames(StatefulSet set) {
    return set.getSpec().getVolumeClaimTemplates().stream().map(t -> t.getMetadata().getName()).toList();
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
    if (desired instanceof StatefulSet want && cached instanceof StatefulSet have && sameClaims(want, have)) {
      want.getSpec().setVolumeClaimTemplates(have.getSpec().getVolumeClaimTemplates().stream()
          .map(t -> new PersistentVolumeClaimBuilder(t).withStatus(null).build())
          .toList());
    }
  }
}
