package io.tenantry.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The simulated cluster's controllers and fake nodes are real enough for the operator: a
 * Deployment becomes Available and a StatefulSet with a volume claim template becomes Ready,
 * its claim bound to a volume provisioned by kube-controller-manager. A Job completes, unless its
 * container runs {@code false} (tools/kwok-pod-stages.yaml): then it fails, as on a real node.
 */
@WithCluster(workloads = true)
class SimulatedClusterIT {

  private static final String NS = "simulated-it-" + ProcessHandle.current().pid();
  private static final Map<String, String> LABELS = Map.of("app", "probe");

  @BeforeAll
  static void createNamespace(KubernetesClient client) {
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
  }

  @AfterAll
  static void deleteNamespace(KubernetesClient client) {
    client.namespaces().withName(NS).delete();
  }

  @Test
  void hasReadyFakeNodes(KubernetesClient client) {
    List<Node> nodes = client.nodes().list().getItems();
    assertThat(nodes).isNotEmpty().allSatisfy(node -> assertThat(node.getStatus().getConditions())
        .anySatisfy(c -> {
          assertThat(c.getType()).isEqualTo("Ready");
          assertThat(c.getStatus()).isEqualTo("True");
        }));
  }

  @Test
  void aDeploymentBecomesAvailable(KubernetesClient client) {
    Deployment deployment = new DeploymentBuilder()
        .withNewMetadata().withName("web").withNamespace(NS).endMetadata()
        .withNewSpec().withReplicas(2).withNewSelector().withMatchLabels(Map.of("app", "web")).endSelector()
        .withNewTemplate().withNewMetadata().withLabels(Map.of("app", "web")).endMetadata()
        .withNewSpec().addNewContainer().withName("web").withImage("registry.example.com/web:1.0").endContainer()
        .endSpec().endTemplate().endSpec()
        .build();
    client.apps().deployments().resource(deployment).create();

    Deployment available = client.apps().deployments().inNamespace(NS).withName("web").waitUntilCondition(
        d -> d != null && d.getStatus() != null && d.getStatus().getConditions() != null
            && d.getStatus().getConditions().stream()
                .anyMatch(c -> "Available".equals(c.getType()) && "True".equals(c.getStatus())),
        2, TimeUnit.MINUTES);
    assertThat(available.getStatus().getAvailableReplicas()).isEqualTo(2);
    assertThat(client.pods().inNamespace(NS).withLabel("app", "web").list().getItems())
        .hasSize(2)
        .allSatisfy(pod -> assertThat(pod.getSpec().getNodeName()).startsWith("node-"));
  }

  @Test
  void aStatefulSetWithAVolumeClaimTemplateBecomesReady(KubernetesClient client) {
    StatefulSet statefulSet = new StatefulSetBuilder()
        .withNewMetadata().withName("db").withNamespace(NS).endMetadata()
        .withNewSpec().withServiceName("db").withReplicas(1)
        .withNewSelector().withMatchLabels(LABELS).endSelector()
        .withNewTemplate().withNewMetadata().withLabels(LABELS).endMetadata()
        .withNewSpec().addNewContainer().withName("db").withImage("registry.example.com/postgres:16")
        .addNewVolumeMount().withName("data").withMountPath("/var/lib/postgresql/data").endVolumeMount()
        .endContainer().endSpec().endTemplate()
        .addNewVolumeClaimTemplate().withNewMetadata().withName("data").endMetadata()
        .withNewSpec().withAccessModes("ReadWriteOnce")
        .withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources()
        .endSpec().endVolumeClaimTemplate()
        .endSpec()
        .build();
    client.apps().statefulSets().resource(statefulSet).create();

    StatefulSet ready = client.apps().statefulSets().inNamespace(NS).withName("db").waitUntilCondition(
        s -> s != null && s.getStatus() != null && Integer.valueOf(1).equals(s.getStatus().getReadyReplicas()),
        2, TimeUnit.MINUTES);
    assertThat(ready.getStatus().getCurrentReplicas()).isEqualTo(1);

    PersistentVolumeClaim claim = client.persistentVolumeClaims().inNamespace(NS).withName("data-db-0").get();
    assertThat(claim.getStatus().getPhase()).isEqualTo("Bound");
    assertThat(claim.getSpec().getVolumeName()).isNotBlank();
    assertThat(client.persistentVolumes().withName(claim.getSpec().getVolumeName()).get().getSpec().getClaimRef().getName())
        .isEqualTo("data-db-0");
  }

  @Test
  void aJobCompletes(KubernetesClient client) {
    client.batch().v1().jobs().resource(job("done", "sh", "-c", "exit 0")).create();

    await().atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(jobCondition(client, "done")).isEqualTo("Complete"));
    assertThat(client.pods().inNamespace(NS).withLabel("job-name", "done").list().getItems())
        .singleElement()
        .satisfies(pod -> assertThat(pod.getStatus().getPhase()).isEqualTo("Succeeded"));
  }

  @Test
  void aJobWhoseContainerRunsFalseFails(KubernetesClient client) {
    client.batch().v1().jobs().resource(job("broken", "false")).create();

    await().atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(jobCondition(client, "broken")).isEqualTo("Failed"));
    assertThat(client.pods().inNamespace(NS).withLabel("job-name", "broken").list().getItems())
        .singleElement()
        .satisfies(pod -> {
          assertThat(pod.getStatus().getPhase()).isEqualTo("Failed");
          assertThat(pod.getStatus().getContainerStatuses().get(0).getState().getTerminated().getExitCode())
              .isEqualTo(1);
        });
  }

  /** A Job of one pod that runs {@code command} once: no retries, no restarts. */
  private static Job job(String name, String... command) {
    return new JobBuilder()
        .withNewMetadata().withName(name).withNamespace(NS).endMetadata()
        .withNewSpec().withBackoffLimit(0)
        .withNewTemplate().withNewSpec().withRestartPolicy("Never")
        .addNewContainer().withName("main").withImage("registry.example.com/tool:1.0").withCommand(command)
        .endContainer()
        .endSpec().endTemplate().endSpec()
        .build();
  }

  /** The type of the Job's True terminal condition (Complete or Failed), or null while it runs. */
  private static String jobCondition(KubernetesClient client, String name) {
    Job job = client.batch().v1().jobs().inNamespace(NS).withName(name).get();
    if (job == null || job.getStatus() == null || job.getStatus().getConditions() == null) {
      return null;
    }
    return job.getStatus().getConditions().stream()
        .filter(c -> List.of("Complete", "Failed").contains(c.getType()) && "True".equals(c.getStatus()))
        .map(JobCondition::getType)
        .findFirst()
        .orElse(null);
  }
}
