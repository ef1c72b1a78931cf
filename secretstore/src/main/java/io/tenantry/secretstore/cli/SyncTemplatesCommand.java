package io.tenantry.secretstore.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.secretstore.sync.TemplateSync;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * {@code sync-templates [--kubeconfig FILE] [--namespace NS] [--max-deletion-share S]}: one
 * {@link TemplateSync} run against the cluster, refusing to delete every template Secret or more
 * than the share S of them. The kubeconfig is read while parsing, so a bad file fails before the
 * store is opened.
 */
record SyncTemplatesCommand(Config config, String namespace, double maxDeletionShare) implements Command {

  static final String NAME = "sync-templates";
  static final String DEFAULT_NAMESPACE = "tenantry-templates";
  private static final int RETRIES = 2;
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  static SyncTemplatesCommand parse(ArgCursor args) {
    String kubeconfig = null;
    String namespace = null;
    String share = null;
    while (args.hasNext()) {
      if (!args.nextIsOption()) {
        args.nextPositional();
        throw new UsageException(NAME + " takes no arguments, only --kubeconfig FILE, --namespace NS and"
            + " --max-deletion-share S");
      }
      String option = args.nextOption();
      switch (option) {
        case "--kubeconfig" -> kubeconfig = ArgCursor.once(option, kubeconfig, args.optionValue());
        case "--namespace" -> namespace = ArgCursor.once(option, namespace, args.optionValue());
        case "--max-deletion-share" -> share = ArgCursor.once(option, share, args.optionValue());
        default -> throw args.unknownOption(NAME);
      }
    }
    double maxDeletionShare = share == null ? TemplateSync.DEFAULT_MAX_DELETION_SHARE : share(share);
    if (namespace == null) {
      namespace = DEFAULT_NAMESPACE;
    } else if (!DNS_LABEL.matcher(namespace).matches()) {
      throw new UsageException("option --namespace must be a namespace name (a DNS label: lowercase letters,"
          + " digits and '-', at most 63 characters): \"" + namespace + "\"");
    }
    Config config = kubeconfig == null ? Config.autoConfigure(null) : readKubeconfig(kubeconfig);
    // The client's default, 10 retries with exponential backoff, keeps an interactive command silent
    // for half a minute when the cluster is unreachable; a person can run it again.
    config.setRequestRetryBackoffLimit(RETRIES);
    return new SyncTemplatesCommand(config, namespace, maxDeletionShare);
  }

  private static double share(String value) {
    try {
      double share = Double.parseDouble(value);
      if (share >= 0 && share <= 1) {
        return share;
      }
    } catch (NumberFormatException e) {
      // Refused below, with the option named.
    }
    throw new UsageException("option --max-deletion-share must be a number from 0 to 1: \"" + value + "\"");
  }

  @Override
  public int run(StoreChoice.OpenedStore opened, PrintStream out, PrintStream err) {
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
      TemplateSync sync = new TemplateSync(opened.store(), client, namespace, maxDeletionShare);
      TemplateSync.Result result = sync.sync(sync.listCurrent());
      out.println("synced the template secrets of " + opened.store().location() + " into namespace " + namespace
          + ": " + result.created() + " created, " + result.updated() + " updated, " + result.deleted()
          + " deleted, " + result.unchanged() + " unchanged");
      return 0;
    } catch (KubernetesClientException e) {
      // The client's message names the operation but not the cluster, which is what a person checks first.
      throw new KubernetesClientException("cluster " + config.getMasterUrl() + ": " + e.getMessage(), e);
    }
  }

  private static Config readKubeconfig(String file) {
    String yaml;
    try {
      yaml = Files.readString(Path.of(file));
    } catch (IOException | InvalidPathException e) {
      throw new UsageException("option --kubeconfig " + file + ": cannot read the file: " + e);
    }
    try {
      return Config.fromKubeconfig(yaml);
    } catch (RuntimeException e) {
      // Only the kind of failure: a YAML parser's message quotes the file, which holds credentials.
      throw new UsageException("option --kubeconfig " + file + ": not a usable kubeconfig ("
          + e.getClass().getSimpleName() + ")");
    }
  }
}
