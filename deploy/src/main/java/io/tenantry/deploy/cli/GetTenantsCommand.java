package io.tenantry.deploy.cli;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.api.v1alpha1.TenantStatus;
import io.tenantry.deploy.rollout.RolloutStart;
import java.util.Comparator;
import java.util.List;

/** {@code get tenants [--clusters C1,C2]}: every tenant of the fleet, one row each, cluster by cluster. */
record GetTenantsCommand(List<String> clusters) implements Command {

  static final String NAME = "get";

  static GetTenantsCommand parse(Args args) {
    args.allowOnly("get tenants", "--clusters");
    String what = args.positionals("get", 1, "tenants").get(0);
    if (!what.equals("tenants") && !what.equals("tenant") && !what.equals("tn")) {
      throw new UsageException("get: unknown resource \"" + what + "\" (expected tenants)");
    }
    return new GetTenantsCommand(args.list("--clusters"));
  }

  @Override
  public int run(Fleet fleet, Terminal terminal) {
    Table table = new Table("CLUSTER", "TENANT", "STATE", "PHASE", "VERSIONS", "READY", "URL");
    int status = 0;
    for (String cluster : RolloutStart.resolveClusters(clusters, fleet.records())) {
      List<Tenant> tenants;
      try {
        tenants = fleet.client(cluster).resources(Tenant.class).list().getItems();
      } catch (KubernetesClientException e) {
        // One unreachable cluster must not hide the others' tenants.
        terminal.err().println("tenantctl: cluster " + cluster + ": cannot list tenants: " + e.getMessage());
        status = 1;
        continue;
      }
      tenants.sort(Comparator.comparing(t -> t.getMetadata().getName()));
      for (Tenant t : tenants) {
        TenantStatus s = t.getStatus();
        table.row(cluster, t.getMetadata().getName(), t.getSpec().getState(), s == null ? null : s.getPhase(),
            s == null || s.getVersions() == null || s.getVersions().isEmpty() ? null : s.getVersions(),
            s == null ? null : s.getConditions().stream().filter(c -> "Ready".equals(c.getType()))
                .map(c -> c.getStatus()).findFirst().orElse(null),
            s == null || s.getUrls() == null || s.getUrls().isEmpty() ? null : s.getUrls().get(0));
      }
    }
    table.lines().forEach(terminal.out()::println);
    return status;
  }
}
