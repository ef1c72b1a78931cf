package io.tenantry.deploy.cli;

import io.tenantry.spares.fleet.Cluster;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** {@code clusters register NAME --context CTX [--label k=v]... | list | remove NAME}: the fleet's registry. */
record ClustersCommand(String action, String cluster, String context, Map<String, String> labels) implements Command {

  static final String NAME = "clusters";

  static ClustersCommand parse(Args args) {
    if (args.positionals().size() < 2) {
      throw new UsageException("clusters: missing action (register, list or remove)");
    }
    String action = args.positionals().get(1);
    switch (action) {
      case "register" -> {
        args.allowOnly("clusters register", "--context", "--label");
        String name = args.positionals("clusters register", 2, "NAME").get(0);
        String context = args.one("--context");
        if (context == null) {
          throw new UsageException("clusters register: --context is required");
        }
        Map<String, String> labels = new TreeMap<>();
        for (String label : args.many("--label")) {
          int equals = label.indexOf('=');
          if (equals <= 0) {
            throw new UsageException("--label: expected KEY=VALUE, got \"" + label + "\"");
          }
          if (labels.put(label.substring(0, equals), label.substring(equals + 1)) != null) {
            throw new UsageException("--label: " + label.substring(0, equals) + " given twice");
          }
        }
        return new ClustersCommand(action, name, context, labels);
      }
      case "list" -> {
        args.allowOnly("clusters list");
        args.positionals("clusters list", 2);
        return new ClustersCommand(action, null, null, Map.of());
      }
      case "remove" -> {
        args.allowOnly("clusters remove");
        return new ClustersCommand(action, args.positionals("clusters remove", 2, "NAME").get(0), null, Map.of());
      }
      default -> throw new UsageException("clusters: unknown action \"" + action + "\" (expected register, list or remove)");
    }
  }

  @Override
  public int run(Fleet fleet, Terminal terminal) {
    switch (action) {
      case "register" -> {
        // Validated before the context is looked up, so a bad name is refused as such.
        Cluster cluster = new Cluster(this.cluster, context, labels, Instant.now());
        if (!fleet.contexts().has(context)) {
          throw new UsageException("--context: no kubeconfig context named " + context + " (known: "
              + String.join(", ", fleet.contexts().names()) + ")");
        }
        Cluster stored = fleet.records().registerCluster(cluster);
        terminal.out().println("cluster " + stored.name() + " registered (context " + stored.context() + ")");
      }
      case "list" -> {
        Table table = new Table("NAME", "CONTEXT", "LABELS", "REGISTERED");
        for (Cluster c : fleet.records().listClusters()) {
          table.row(c.name(), c.context(), c.labels().isEmpty() ? "<none>" : c.labels().entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(",")),
              c.registeredAt().truncatedTo(ChronoUnit.SECONDS));
        }
        table.lines().forEach(terminal.out()::println);
      }
      default -> {
        boolean removed = fleet.records().removeCluster(cluster);
        if (!removed) {
          throw new UsageException("clusters remove: no cluster named " + cluster);
        }
        terminal.out().println("cluster " + cluster + " removed");
      }
    }
    return 0;
  }

}
