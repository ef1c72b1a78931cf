package io.tenantry.controller.backup;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.backup.agent.AgentReport;
import io.tenantry.backup.store.BackupStore;
import java.nio.charset.StandardCharsets;

/** What judging an ended backup, drill or restore Job takes: whether it ended, its agent's report, its removal. */
final class JobEnds {

  private JobEnds() {
  }

  /** Whether the Job has ended, either way: its Complete or Failed condition is True. */
  static boolean ended(Job job) {
    return job.getStatus() != null && job.getStatus().getConditions() != null && job.getStatus().getConditions().stream()
        .anyMatch(c -> ("Complete".equals(c.getType()) || "Failed".equals(c.getType())) && "True".equals(c.getStatus()));
  }

  /** What an agent reported at {@code path} in the store, or null if it reported nothing. */
  static AgentReport report(BackupStore store, String path) {
    if (store.stat(path).isEmpty()) {
      return null;
    }
    String json = new String(store.read(path), StandardCharsets.UTF_8);
    try {
      return AgentReport.fromJson(json);
    } catch (RuntimeException e) {
      return AgentReport.failed("uploadFailed", "the agent's report does not parse: " + json);
    }
  }

  /** Deletes a Job (its pod with it), a Secret or a volume claim; one already gone is fine. */
  static void delete(KubernetesClient client, HasMetadata object) {
    try {
      client.resource(object).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }
}
