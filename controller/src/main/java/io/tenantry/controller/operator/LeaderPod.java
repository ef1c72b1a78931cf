package io.tenantry.controller.operator;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Marks which replica leads on the replicas' own pods: the label {@value #LABEL} is {@code "true"}
 * on the leader's pod and {@code "false"} on every other, so a Service selecting
 * {@code tenantry.io/leader: "true"} (the chart's allocation API Service) reaches the leader only,
 * while every replica stays Ready for rollouts and disruption budgets (a readiness that meant
 * "leads" would leave the standby unready and stall every rolling update).
 *
 * <p>Guarantees: a replica clears its own label before it serves anything ({@link #standby}), so a
 * restarted former leader is never reached; a new leader first clears the label on every other pod
 * of its namespace (one that lost the lease without the chance to clear its own), then sets its own
 * ({@link #leading}). A label write that fails is retried a few times and then logged: it costs the
 * allocation API's reachability, never the controller loop. The pod is named by the downward API
 * (environment {@code POD_NAME}, {@code POD_NAMESPACE}); the account needs get, list and patch on
 * pods in that namespace only.
 */
final class LeaderPod {

  static final String LABEL = "tenantry.io/leader";
  private static final Logger LOG = LoggerFactory.getLogger(LeaderPod.class);
  private static final int ATTEMPTS = 5;

  private final KubernetesClient client;
  private final String namespace;
  private final String name;
  private final Duration retryDelay;

  LeaderPod(KubernetesClient client, String namespace, String name, Duration retryDelay) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    this.retryDelay = retryDelay;
  }

  /** This process's pod as the environment names it, or null outside a pod (no POD_NAME or POD_NAMESPACE). */
  static LeaderPod fromEnvironment(KubernetesClient client, Map<String, String> env) {
    String podName = env.get("POD_NAME");
    String podNamespace = env.get("POD_NAMESPACE");
    if (podName == null || podName.isBlank() || podNamespace == null || podNamespace.isBlank()) {
      return null;
    }
    return new LeaderPod(client, podNamespace, podName, Duration.ofSeconds(1));
  }

  /** Labels this pod as not leading. */
  void standby() {
    withRetries("standby", () -> label(name, false));
  }

  /** Clears the label on every other pod of the namespace that still carries it, then labels this pod as the leader. */
  void leading() {
    withRetries("leading", () -> {
      for (Pod other : client.pods().inNamespace(namespace).withLabel(LABEL, "true").list().getItems()) {
        if (!name.equals(other.getMetadata().getName())) {
          label(other.getMetadata().getName(), false);
        }
      }
      label(name, true);
    });
  }

  private void label(String pod, boolean leader) {
    client.pods().inNamespace(namespace).withName(pod).patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"metadata\":{\"labels\":{\"" + LABEL + "\":\"" + leader + "\"}}}");
  }

  private void withRetries(String step, Runnable write) {
    for (int attempt = 1; ; attempt++) {
      try {
        write.run();
        LOG.info("labelled the pod {} {} {}", kv("pod", name), kv("namespace", namespace), kv("step", step));
        return;
      } catch (KubernetesClientException e) {
        if (attempt == ATTEMPTS || !pause()) {
          LOG.error("could not label the pod: the allocation Service may not reach the leader {} {} {}",
              kv("pod", name), kv("step", step), kv("error", e.getMessage()));
          return;
        }
      }
    }
  }

  /** Waits before the next attempt; false when interrupted (the process is stopping). */
  private boolean pause() {
    try {
      Thread.sleep(retryDelay.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
