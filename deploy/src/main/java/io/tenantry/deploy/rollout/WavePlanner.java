package io.tenantry.deploy.rollout;

import io.tenantry.api.WellKnown;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.api.v1alpha1.SparePool;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.api.v1alpha1.TenantTemplate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Turns a request and what the clusters hold into ordered waves, without touching a cluster.
 *
 * <p>Clusters are rolled one after the other, in the request's order (a broken version stays in
 * the first cluster); within a cluster, tenants by name, {@code waveSize} at a time, so a wave
 * never spans two clusters. Selected: tenants in state New or Active that run the app, except
 * unallocated spares (New, labelled with a pool), which follow their pool's template. With
 * {@code --all}, each cluster's spare pools that run the app follow once that cluster's waves are
 * done; a rollout of a subset leaves the pools, and so new signups, on the fleet's version.
 */
public final class WavePlanner {

  /** The waves, the pools that follow, and what was left out and why (for the user to see). */
  public record Plan(List<String> clusters, List<Wave> waves, List<PoolProgress> pools, List<String> skipped) {
  }

  private WavePlanner() {
  }

  public static Plan plan(RolloutRequest request, List<ClusterInventory> inventory) {
    Map<String, Tenant> byName = tenantsByName(inventory);
    String where = inventory.stream().map(ClusterInventory::cluster).collect(Collectors.joining(", "));
    if (request.selection().kind() == Selection.Kind.NAMES) {
      checkNamedTenants(request, byName, where);
    }
    Waves waves = new Waves(request);
    for (ClusterInventory cluster : inventory) {
      waves.addCluster(cluster);
    }
    waves.checkSomethingToRollOut(where);
    return new Plan(inventory.stream().map(ClusterInventory::cluster).toList(), waves.waves, waves.pools,
        waves.skipped);
  }

  /** Every tenant of the fleet by name; a name in two clusters is refused, rolling it would be ambiguous. */
  private static Map<String, Tenant> tenantsByName(List<ClusterInventory> inventory) {
    Map<String, Tenant> byName = new LinkedHashMap<>();
    Map<String, String> clusterOf = new LinkedHashMap<>();
    for (ClusterInventory cluster : inventory) {
      for (Tenant tenant : cluster.tenants()) {
        String name = tenant.getMetadata().getName();
        String other = clusterOf.putIfAbsent(name, cluster.cluster());
        if (other != null) {
          throw new RolloutInputException("--clusters", "tenant " + name + " exists in both " + other + " and "
              + cluster.cluster() + "; roll one cluster at a time (--clusters) until the duplicate is resolved");
        }
        byName.put(name, tenant);
      }
    }
    return byName;
  }

  /** Tenants named with {@code --tenants} must exist, not be spares, be running and run the app. */
  private static void checkNamedTenants(RolloutRequest request, Map<String, Tenant> byName, String where) {
    for (String name : request.selection().names()) {
      Tenant tenant = byName.get(name);
      if (tenant == null) {
        throw new RolloutInputException("--tenants", "no tenant named " + name + " in clusters " + where);
      }
      if (isSpare(tenant)) {
        throw new RolloutInputException("--tenants", name + " is an unallocated spare of pool "
            + tenant.getMetadata().getLabels().get(WellKnown.SPARE_POOL) + "; spares follow their pool's template");
      }
      if (!isRunning(tenant)) {
        throw new RolloutInputException("--tenants", name + " is " + tenant.getSpec().getState()
            + "; only New and Active tenants are rolled out");
      }
      if (app(tenant.getSpec(), request.app()).isEmpty()) {
        throw new RolloutInputException("--app", "tenant " + name + " has no app named " + request.app());
      }
    }
  }

  /** The plan as it is built, cluster after cluster. */
  private static final class Waves {
    private final RolloutRequest request;
    private final List<Wave> waves = new ArrayList<>();
    private final List<PoolProgress> pools = new ArrayList<>();
    private final List<String> skipped = new ArrayList<>();
    private int candidates;
    private boolean appSeen;

    Waves(RolloutRequest request) {
      this.request = request;
    }

    /** The cluster's selected tenants in waves of {@code waveSize}, then its pools that follow. */
    void addCluster(ClusterInventory cluster) {
      List<String> selected = select(cluster);
      for (int from = 0; from < selected.size(); from += request.waveSize()) {
        List<TenantProgress> tenants = selected.subList(from, Math.min(selected.size(), from + request.waveSize()))
            .stream().map(TenantProgress::pending).toList();
        waves.add(new Wave(waves.size() + 1, cluster.cluster(), tenants));
      }
      for (SparePool pool : cluster.pools().stream()
          .sorted(Comparator.comparing((SparePool p) -> p.getMetadata().getName())).toList()) {
        Optional<AppSpec> app = app(pool.getSpec().getTemplate(), request.app());
        appSeen |= app.isPresent();
        if (request.selection().kind() == Selection.Kind.ALL && app.isPresent()) {
          pools.add(new PoolProgress(cluster.cluster(), pool.getMetadata().getName(), false));
        }
      }
    }

    /** The names of the cluster's tenants to roll, sorted; the others left out are noted in skipped. */
    private List<String> select(ClusterInventory cluster) {
      List<String> selected = new ArrayList<>();
      for (Tenant tenant : cluster.tenants().stream()
          .sorted(Comparator.comparing((Tenant t) -> t.getMetadata().getName())).toList()) {
        String name = tenant.getMetadata().getName();
        if (request.selection().kind() == Selection.Kind.NAMES && !request.selection().names().contains(name)) {
          continue;
        }
        if (isSpare(tenant)) {
          continue; // Its pool's template decides its version.
        }
        candidates++;
        boolean runsApp = app(tenant.getSpec(), request.app()).isPresent();
        appSeen |= runsApp;
        if (!runsApp) {
          skipped.add(cluster.cluster() + "/" + name + ": no app " + request.app());
        } else if (!isRunning(tenant)) {
          skipped.add(cluster.cluster() + "/" + name + ": " + tenant.getSpec().getState());
        } else {
          selected.add(name);
        }
      }
      return selected;
    }

    /** Refuses a plan that matched nothing, where nothing runs the app, or where everything was left out. */
    void checkSomethingToRollOut(String where) {
      String flag = request.selection().kind() == Selection.Kind.SELECTOR ? "--selector" : "--all";
      if (candidates == 0 && pools.isEmpty()) {
        throw new RolloutInputException(flag, (flag.equals("--selector") ? request.selection().selector() + " matches"
            : "there is") + " no tenant in clusters " + where);
      }
      if (!appSeen) {
        throw new RolloutInputException("--app", "no selected tenant or spare pool in clusters " + where
            + " runs an app named " + request.app());
      }
      if (waves.isEmpty() && pools.isEmpty()) {
        throw new RolloutInputException(flag, "nothing to roll out: every selected tenant was left out ("
            + String.join("; ", skipped) + ")");
      }
    }
  }

  /** The app of that name in a tenant's or pool's template. */
  public static Optional<AppSpec> app(TenantTemplate template, String app) {
    return template == null ? Optional.empty()
        : template.getApps().stream().filter(a -> app.equals(a.getName())).findFirst();
  }

  static boolean isSpare(Tenant tenant) {
    Map<String, String> labels = tenant.getMetadata().getLabels();
    return tenant.getSpec().getState() == TenantState.New && labels != null && labels.containsKey(WellKnown.SPARE_POOL);
  }

  private static boolean isRunning(Tenant tenant) {
    TenantState state = tenant.getSpec().getState();
    return state == TenantState.New || state == TenantState.Active;
  }
}
