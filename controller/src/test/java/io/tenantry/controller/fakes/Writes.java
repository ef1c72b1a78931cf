package io.tenantry.controller.fakes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.SparePoolStatus;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.controller.apply.ObjectKey;
import io.tenantry.controller.apply.ObjectWriter;
import io.tenantry.controller.apply.TenantWriter;
import io.tenantry.controller.events.EventRecorder;
import io.tenantry.controller.events.EventType;
import io.tenantry.controller.pool.SpareWriter;
import io.tenantry.controller.status.Reason;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Every write a sync makes, in order, as one line each ({@code "apply Deployment tenant-acme/web"},
 * {@code "status acme"}, {@code "event acme Warning DeletedWithoutPurge"}), applied to a
 * {@link FakeCluster} as the API server would, so that the next sync reads what this one wrote.
 * Writes guarded by a resourceVersion fail with a 409 when the cluster holds a newer one.
 */
public final class Writes implements ObjectWriter, TenantWriter, EventRecorder, SpareWriter {

  private final FakeCluster cluster;
  private final List<String> log = new ArrayList<>();
  private final List<String> eventMessages = new ArrayList<>();
  /** Owned objects the API server refuses to write, as "Kind namespace/name", with its message. */
  private final Map<String, String> refusals = new HashMap<>();
  /** What happens elsewhere just before an owned object ("Kind namespace/name") is written: once each. */
  private final Map<String, Runnable> meanwhile = new HashMap<>();

  public Writes(FakeCluster cluster) {
    this.cluster = cluster;
  }

  /** The writes so far, then forgets them: each test step asserts its own. */
  public List<String> take() {
    List<String> taken = List.copyOf(log);
    log.clear();
    return taken;
  }

  /** The writes so far that match {@code filter}, without forgetting them. */
  public List<String> matching(Predicate<String> filter) {
    return log.stream().filter(filter).toList();
  }

  /**
   * Makes every write of {@code object} ("Kind namespace/name") fail as the API server refuses one,
   * with {@code message}; nothing is recorded or applied. {@code null} accepts its writes again.
   */
  public void refuse(String object, String message) {
    if (message == null) {
      refusals.remove(object);
    } else {
      refusals.put(object, message);
    }
  }

  /** Runs {@code action} just before the next write of {@code object} ("Kind namespace/name"), as if it happened meanwhile. */
  public void beforeWriting(String object, Runnable action) {
    meanwhile.put(object, action);
  }

  public List<String> eventMessages() {
    return List.copyOf(eventMessages);
  }

  @Override
  public void write(HasMetadata desired, boolean create) {
    Runnable action = meanwhile.remove(ObjectKey.of(desired).toString());
    if (action != null) {
      action.run();
    }
    String refusal = refusals.get(ObjectKey.of(desired).toString());
    if (refusal != null) {
      throw new KubernetesClientException(new StatusBuilder().withCode(422).withMessage(refusal).build());
    }
    log.add((create ? "create " : "apply ") + ObjectKey.of(desired));
    HasMetadata existing = cluster.get(desired.getClass(), desired.getMetadata().getNamespace(), desired.getMetadata().getName());
    HasMetadata stored = desired;
    if (existing != null) {
      // Server-side apply keeps what others set (the status, the uid): only the desired fields change.
      desired.getMetadata().setUid(existing.getMetadata().getUid());
    }
    cluster.putOwned(stored);
  }

  @Override
  public void handOver(HasMetadata fields) {
    log.add("handover " + ObjectKey.of(fields));
  }

  @Override
  public void delete(HasMetadata cached) {
    log.add("delete " + ObjectKey.of(cached));
    if (cached instanceof Namespace) {
      cluster.terminate(cached.getMetadata().getName());
    } else {
      cluster.removeOwned(cached);
    }
  }

  @Override
  public void writeStatus(Tenant cached, TenantStatus status) {
    log.add("status " + cached.getMetadata().getName() + " " + status.getPhase());
    Tenant current = guard(cluster.tenant(cached.getMetadata().getName()), cached);
    current.setStatus(status);
    cluster.putTenant(current);
  }

  @Override
  public void writeFinalizers(Tenant cached, List<String> finalizers) {
    log.add("finalizers " + cached.getMetadata().getName() + " " + finalizers);
    Tenant current = guard(cluster.tenant(cached.getMetadata().getName()), cached);
    current.getMetadata().setFinalizers(new ArrayList<>(finalizers));
    cluster.putTenant(current);
  }

  @Override
  public void record(Tenant tenant, EventType type, Reason reason, String message) {
    log.add("event " + tenant.getMetadata().getName() + " " + type + " " + reason);
    eventMessages.add(message);
  }

  @Override
  public void create(Tenant spare) {
    log.add("create Tenant " + spare.getMetadata().getName());
    cluster.putTenant(spare);
  }

  @Override
  public void update(Tenant updated) {
    log.add("update Tenant " + updated.getMetadata().getName() + " " + updated.getSpec().getState());
    guard(cluster.tenant(updated.getMetadata().getName()), updated);
    cluster.putTenant(updated);
  }

  @Override
  public void delete(Tenant spare) {
    log.add("delete Tenant " + spare.getMetadata().getName());
    cluster.removeTenant(spare.getMetadata().getName());
  }

  @Override
  public void writeStatus(SparePool cached, SparePoolStatus status) {
    log.add("status SparePool " + cached.getMetadata().getName() + " ready=" + status.getReady() + " provisioning="
        + status.getProvisioning() + " allocated=" + status.getAllocated());
    SparePool current = guard(cluster.pool(cached.getMetadata().getName()), cached);
    current.setStatus(status);
    cluster.putPool(current);
  }

  /** A write at a resourceVersion the cluster no longer has fails as the API server's would. */
  private static <T extends HasMetadata> T guard(T current, HasMetadata written) {
    String expected = written.getMetadata().getResourceVersion();
    if (current == null || (expected != null && !expected.equals(current.getMetadata().getResourceVersion()))) {
      throw new KubernetesClientException("conflict on " + ObjectKey.of(written), 409, null);
    }
    return current;
  }
}
