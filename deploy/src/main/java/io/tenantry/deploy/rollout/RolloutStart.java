package io.tenantry.deploy.rollout;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.spares.fleet.Cluster;
import io.tenantry.spares.fleet.FleetRecords;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Starts a rollout: resolves the clusters against the fleet registry, reads what they hold, plans
 * the waves and stores the record. Everything is checked before the record is written, so a bad
 * request changes nothing. Asking again for an unfinished rollout (same app, version, selection and
 * clusters) returns that rollout, to be resumed, rather than starting another.
 */
public final class RolloutStart {

  private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);
  private static final SecureRandom RANDOM = new SecureRandom();

  /** The rollout to run; {@code existing} when it was an unfinished one asked for again. */
  public record Started(Rollout rollout, boolean existing, List<String> skipped) {
  }

  private RolloutStart() {
  }

  public static Started start(RolloutRequest request, FleetRecords fleet, Function<String, KubernetesClient> clients,
      RolloutRecords records, Clock clock) {
    List<String> clusters = resolveClusters(request.clusters(), fleet);
    for (RolloutSummary unfinished : records.unfinished(request.app())) {
      Rollout other = records.get(unfinished.id()).orElseThrow();
      if (other.request().version().equals(request.version())
          && other.request().selection().equals(request.selection()) && other.clusters().equals(clusters)) {
        return new Started(other, true, List.of());
      }
      throw new RolloutConflictException("rollout " + other.id() + " of " + request.app() + " to "
          + other.request().version() + " (" + other.request().selection().describe() + ") is " + other.state()
          + "; resume it (tenantctl rollout resume " + other.id() + ") or abort it first");
    }
    List<ClusterInventory> inventory = new ArrayList<>();
    for (String cluster : clusters) {
      inventory.add(read(cluster, clients.apply(cluster), request.selection()));
    }
    WavePlanner.Plan plan = WavePlanner.plan(request, inventory);
    Instant now = clock.instant();
    Rollout rollout = new Rollout(newId(request.app(), now), request, RolloutState.RUNNING, plan.clusters(), plan.waves(),
        plan.pools(), now, now, null, null, null);
    records.create(rollout);
    return new Started(rollout, false, plan.skipped());
  }

  /** The requested clusters in the requested order, or every registered one by name. */
  public static List<String> resolveClusters(List<String> requested, FleetRecords fleet) {
    List<String> registered = fleet.listClusters().stream().map(Cluster::name).toList();
    if (registered.isEmpty()) {
      throw new RolloutInputException("--clusters", "no cluster is registered; register one with"
          + " tenantctl clusters register NAME --context CONTEXT");
    }
    for (String cluster : requested) {
      if (!registered.contains(cluster)) {
        throw new RolloutInputException("--clusters", "unknown cluster " + cluster + "; registered: "
            + String.join(", ", registered));
      }
    }
    return requested.isEmpty() ? registered : requested;
  }

  private static ClusterInventory read(String cluster, KubernetesClient client, Selection selection) {
    List<Tenant> tenants;
    try {
      tenants = selection.kind() == Selection.Kind.SELECTOR
          ? client.resources(Tenant.class).withLabelSelector(selection.selector()).list().getItems()
          : client.resources(Tenant.class).list().getItems();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 400 && selection.kind() == Selection.Kind.SELECTOR) {
        throw new RolloutInputException("--selector", "not a label selector the API server accepts: "
            + (e.getStatus() != null ? e.getStatus().getMessage() : e.getMessage()));
      }
      throw e;
    }
    return new ClusterInventory(cluster, tenants, client.resources(SparePool.class).list().getItems());
  }

  /** Sortable and readable: the app, when (UTC), and a few random characters. */
  static String newId(String app, Instant now) {
    String suffix = RANDOM.ints(4, 0, 36).mapToObj(i -> Character.toString(Character.forDigit(i, 36)))
        .collect(Collectors.joining());
    return app + "-" + ID_TIME.format(now) + "-" + suffix;
  }
}
