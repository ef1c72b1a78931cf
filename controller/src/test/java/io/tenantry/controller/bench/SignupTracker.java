package io.tenantry.controller.bench;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.RouteParentStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.tenantry.api.Spares;
import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.resources.Names;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * When each signup's milestones were first seen (System.nanoTime() at the watch event), from
 * informers of the benchmark's own client: Tenants Active and Ready at their current generation,
 * their allocation-recorded mark, HTTPRoutes accepted by the Gateway, web Services whose endpoints
 * name a Ready pod, identity ConfigMaps naming a
 * customer ({@link TrafficEdge} reports those). Also the pool's Ready spares, and the fewest seen
 * since the last {@link #resetLeastReady}, sampled every 200 ms.
 */
final class SignupTracker implements AutoCloseable {

  private final String pool;
  private final SharedIndexInformer<Tenant> tenants;
  private final SharedIndexInformer<HTTPRoute> routes;
  private final SharedIndexInformer<EndpointSlice> webSlices;
  private final Map<String, Long> ready = new ConcurrentHashMap<>();
  private final Map<String, Long> recorded = new ConcurrentHashMap<>();
  private final Map<String, Long> written = new ConcurrentHashMap<>();
  private final Map<String, Long> accepted = new ConcurrentHashMap<>();
  private final Map<String, Long> opened = new ConcurrentHashMap<>();
  private final Map<String, Long> identities = new ConcurrentHashMap<>();
  /** The pool's spares: when each was first seen, and when first seen Ready. */
  private final Map<String, Long> spareSeen = new ConcurrentHashMap<>();
  private final Map<String, Long> spareReady = new ConcurrentHashMap<>();
  private final AtomicInteger leastReady = new AtomicInteger(Integer.MAX_VALUE);
  private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();

  SignupTracker(KubernetesClient admin, String pool) {
    this.pool = pool;
    tenants = admin.resources(Tenant.class).inform(new TrafficEdge.OnChange<>(this::tenantSeen), 0);
    routes = admin.resources(HTTPRoute.class).inAnyNamespace().inform(new TrafficEdge.OnChange<>(this::routeSeen), 0);
    webSlices = admin.discovery().v1().endpointSlices().inAnyNamespace().withLabel("kubernetes.io/service-name", Names.app("web"))
        .inform(new TrafficEdge.OnChange<>(this::sliceSeen), 0);
    sampler.scheduleWithFixedDelay(() -> leastReady.accumulateAndGet(readySpares().size(), Math::min), 0, 200,
        TimeUnit.MILLISECONDS);
  }

  private void tenantSeen(Tenant t) {
    long now = System.nanoTime();
    String name = t.getMetadata().getName();
    if (Spares.isUnallocated(t) && pool.equals(Spares.pool(t))) {
      spareSeen.putIfAbsent(name, now);
      if (Spares.isReady(t)) {
        spareReady.putIfAbsent(name, now);
      }
    }
    if (t.getStatus() != null && t.getStatus().getObservedState() == TenantState.Active
        && t.getStatus().getPhase() == TenantPhase.Ready && t.getMetadata().getGeneration().equals(t.getStatus().getObservedGeneration())) {
      ready.putIfAbsent(name, now);
    }
    if (SignupBenchmark.annotations(t).containsKey(WellKnown.ALLOCATION_RECORDED)) {
      recorded.putIfAbsent(name, now);
    }
  }

  /** Stamps each hostname of the route when first seen, and when first accepted at the route's current generation. */
  private void routeSeen(HTTPRoute route) {
    long now = System.nanoTime();
    String namespace = route.getMetadata().getNamespace();
    List<String> hostnames = route.getSpec() == null || route.getSpec().getHostnames() == null ? List.of() : route.getSpec().getHostnames();
    hostnames.forEach(host -> written.putIfAbsent(namespace + "/" + host, now));
    if (route.getStatus() == null || route.getStatus().getParents() == null) {
      return;
    }
    for (RouteParentStatus parent : route.getStatus().getParents()) {
      for (Condition c : parent.getConditions() == null ? List.<Condition>of() : parent.getConditions()) {
        if ("Accepted".equals(c.getType()) && "True".equals(c.getStatus())
            && route.getMetadata().getGeneration().equals(c.getObservedGeneration())) {
          hostnames.forEach(host -> accepted.putIfAbsent(namespace + "/" + host, now));
        }
      }
    }
  }

  /** Stamps the namespace when its web Service's endpoints first name a Ready pod: a spare's, once its bind opened it. */
  private void sliceSeen(EndpointSlice slice) {
    if (slice.getEndpoints() != null && slice.getEndpoints().stream()
        .anyMatch(e -> e.getConditions() != null && Boolean.TRUE.equals(e.getConditions().getReady()))) {
      opened.putIfAbsent(slice.getMetadata().getNamespace(), System.nanoTime());
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

  /** When a route of the namespace was first seen naming {@code host}: written, not yet accepted. */
  long written(String namespace, String host) {
    return written.getOrDefault(namespace + "/" + host, 0L);
  }

  /** When a route of the namespace naming {@code host} was first seen accepted by the Gateway, at its generation. */
  long accepted(String namespace, String host) {
    return accepted.getOrDefault(namespace + "/" + host, 0L);
  }

  /** Removes a host's stamps, so that a later route naming it is timed afresh. */
  void forgetRoute(String namespace, String host) {
    written.remove(namespace + "/" + host);
    accepted.remove(namespace + "/" + host);
  }

  /** When the namespace's web Service first had a Ready endpoint. */
  long opened(String namespace) {
    return opened.getOrDefault(namespace, 0L);
  }

  long identity(String namespace, String organization) {
    return identities.getOrDefault(namespace + "/" + organization, 0L);
  }

  /**
   * The spares first seen since {@code since} (System.nanoTime()) and Ready by now: how many, how
   * fast the pool built them (from the first one seen to the last one Ready), and each one's time
   * from seen to Ready.
   */
  String sparesBuiltSince(long since) {
    List<String> built = spareSeen.entrySet().stream().filter(e -> e.getValue() >= since && spareReady.containsKey(e.getKey()))
        .map(Map.Entry::getKey).toList();
    if (built.isEmpty()) {
      return "none";
    }
    long first = built.stream().mapToLong(spareSeen::get).min().orElseThrow();
    long last = built.stream().mapToLong(spareReady::get).max().orElseThrow();
    List<Long> each = built.stream().map(n -> spareReady.get(n) - spareSeen.get(n)).sorted().toList();
    double seconds = Math.max(1, last - first) / 1e9;
    return String.format(Locale.ROOT, "%d in %.1f s = %.1f/s; each p50 %.1f s, p99 %.1f s from created to Ready", built.size(), seconds,
        built.size() / seconds, each.get(each.size() / 2) / 1e9, each.get(Math.min(each.size() - 1, (int) Math.ceil(each.size() * 0.99) - 1)) / 1e9);
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
    webSlices.close();
  }
}
