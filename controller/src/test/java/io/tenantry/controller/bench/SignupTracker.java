package io.tenantry.controller.bench;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.RouteParentStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.tenantry.api.Spares;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * When each signup's milestones were first seen (System.nanoTime() at the watch event), from
 * informers of the benchmark's own client: Tenants Active and Ready at their current generation,
 * their allocation-recorded mark, HTTPRoutes accepted by the Gateway, identity ConfigMaps naming a
 * customer ({@link TrafficEdge} reports those). Also the pool's Ready spares, and the fewest seen
 * since the last {@link #resetLeastReady}, sampled every 200 ms.
 */
final class SignupTracker implements AutoCloseable {

  private final String pool;
  private final SharedIndexInformer<Tenant> tenants;
  private final SharedIndexInformer<HTTPRoute> routes;
  private final Map<String, Long> ready = new ConcurrentHashMap<>();
  private final Map<String, Long> recorded = new ConcurrentHashMap<>();
  private final Map<String, Long> written = new ConcurrentHashMap<>();
  private final Map<String, Long> accepted = new ConcurrentHashMap<>();
  private final Map<String, Long> identities = new ConcurrentHashMap<>();
  private final AtomicInteger leastReady = new AtomicInteger(Integer.MAX_VALUE);
  private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();

  SignupTracker(KubernetesClient admin, String pool) {
    this.pool = pool;
    tenants = admin.resources(Tenant.class).inform(new TrafficEdge.OnChange<>(this::tenantSeen), 0);
    routes = admin.resources(HTTPRoute.class).inAnyNamespace().inform(new TrafficEdge.OnChange<>(this::routeSeen), 0);
    sampler.scheduleWithFixedDelay(() -> leastReady.accumulateAndGet(readySpares().size(), Math::min), 0, 200,
        TimeUnit.MILLISECONDS);
  }

  private void tenantSeen(Tenant t) {
    long now = System.nanoTime();
    String name = t.getMetadata().getName();
    if (t.getStatus() != null && t.getStatus().getObservedState() == TenantState.Active
        && t.getStatus().getPhase() == TenantPhase.Ready && t.getMetadata().getGeneration().equals(t.getStatus().getObservedGeneration())) {
      ready.putIfAbsent(name, now);
    }
    if (SignupBenchmark.annotations(t).containsKey(WellKnown.ALLOCATION_RECORDED)) {
      recorded.putIfAbsent(name, now);
    }
  }

  private void routeSeen(HTTPRoute route) {
    written.putIfAbsent(route.getMetadata().getNamespace() + "/" + route.getMetadata().getName(), System.nanoTime());
    if (route.getStatus() == null || route.getStatus().getParents() == null) {
      return;
    }
    for (RouteParentStatus parent : route.getStatus().getParents()) {
      for (Condition c : parent.getConditions() == null ? List.<Condition>of() : parent.getConditions()) {
        if ("Accepted".equals(c.getType()) && "True".equals(c.getStatus())) {
          accepted.putIfAbsent(route.getMetadata().getNamespace() + "/" + route.getMetadata().getName(), System.nanoTime());
        }
      }
    }
  }

  void identitySeen(String namespace, String organization) {
    identities.putIfAbsent(namespace + "/" + organization, System.nanoTime());
  }

  long ready(String tenant) {
    return ready.getOrDefault(tenant, 0L);
  }

  long recorded(String tenant) {
    return recorded.getOrDefault(tenant, 0L);
  }

  /** When the route was first seen: written, not yet accepted. */
  long written(String namespace, String route) {
    return written.getOrDefault(namespace + "/" + route, 0L);
  }

  long accepted(String namespace, String route) {
    return accepted.getOrDefault(namespace + "/" + route, 0L);
  }

  /** Removes a route's stamp, so that a later route of the same name is timed afresh. */
  void forgetRoute(String namespace, String route) {
    written.remove(namespace + "/" + route);
    accepted.remove(namespace + "/" + route);
  }

  long identity(String namespace, String organization) {
    return identities.getOrDefault(namespace + "/" + organization, 0L);
  }

  /** The pool's Ready spares, as the informer holds them. */
  List<Tenant> readySpares() {
    return tenants.getStore().list().stream().filter(t -> Spares.isReady(t) && pool.equals(Spares.pool(t))).toList();
  }

  void resetLeastReady() {
    leastReady.set(readySpares().size());
  }

  int leastReady() {
    return leastReady.get();
  }

  @Override
  public void close() {
    sampler.shutdownNow();
    tenants.close();
    routes.close();
  }
}
