package io.tenantry.spares.fleet;

import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fleet's clusters as named contexts of kubeconfig files. The fleet records hold only a
 * cluster's context name; the credentials stay in these files, on the machine that uses them.
 * Several files are read like {@code KUBECONFIG=a:b}: the first file naming a context wins.
 */
public final class KubeContexts {

  private final Map<String, File> files;

  private KubeContexts(Map<String, File> files) {
    this.files = Collections.unmodifiableMap(files);
  }

  /** Reads the contexts of every file; an unreadable or malformed file is refused, naming it. */
  public static KubeContexts load(List<Path> kubeconfigs) {
    Map<String, File> files = new TreeMap<>();
    for (Path path : kubeconfigs) {
      if (!Files.isReadable(path)) {
        throw new FleetInputException("kubeconfig", "cannot read " + path);
      }
      io.fabric8.kubernetes.api.model.Config parsed;
      try {
        parsed = KubeConfigUtils.parseConfig(path.toFile());
      } catch (RuntimeException e) {
        throw new FleetInputException("kubeconfig", path + " is not a kubeconfig: " + e.getMessage());
      }
      if (parsed.getContexts() != null) {
        for (NamedContext context : parsed.getContexts()) {
          files.putIfAbsent(context.getName(), path.toFile());
        }
      }
    }
    return new KubeContexts(files);
  }

  /** The files of {@code $KUBECONFIG}, or {@code ~/.kube/config} when it is unset. */
  public static KubeContexts fromEnvironment() {
    String variable = System.getenv("KUBECONFIG");
    if (variable == null || variable.isBlank()) {
      return load(List.of(Path.of(System.getProperty("user.home"), ".kube", "config")));
    }
    return load(java.util.Arrays.stream(variable.split(File.pathSeparator))
        .filter(s -> !s.isBlank()).map(Path::of).toList());
  }

  /** Every context name known, sorted. */
  public java.util.Set<String> names() {
    return files.keySet();
  }

  public boolean has(String context) {
    return files.containsKey(context);
  }

  /** A client for the context; {@link FleetInputException} on {@code context} when no file names it. */
  public KubernetesClient connect(String context) {
    File file = files.get(context);
    if (file == null) {
      throw new FleetInputException("context", "no kubeconfig context named " + context
          + (files.isEmpty() ? " (no contexts loaded)" : "; known: " + String.join(", ", files.keySet())));
    }
    Config config = Config.fromKubeconfig(context, file);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** A client for the cluster's context. */
  public KubernetesClient connect(Cluster cluster) {
    return connect(cluster.context());
  }
}
