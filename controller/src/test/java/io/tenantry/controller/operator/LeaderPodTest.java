package io.tenantry.controller.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class LeaderPodTest {

  private static final String NAMESPACE = "tenantry-system";
  private KubernetesClient client;

  @BeforeEach
  void pods() {
    client.pods().inNamespace(NAMESPACE).delete();
    for (String name : new String[] {"operator-a", "operator-b", "other"}) {
      client.pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata().withName(name)
          .addToLabels("app", "x").endMetadata().build()).create();
    }
  }

  private String leaderLabel(String pod) {
    Pod p = client.pods().inNamespace(NAMESPACE).withName(pod).get();
    return p.getMetadata().getLabels().get(LeaderPod.LABEL);
  }

  private LeaderPod pod(String name) {
    return new LeaderPod(client, NAMESPACE, name, Duration.ofMillis(1));
  }

  @Test
  void theLeaderLabelsItsPodAndClearsTheLabelOfAFormerLeader() {
    pod("operator-a").leading();
    assertThat(leaderLabel("operator-a")).isEqualTo("true");

    // operator-a lost the lease without the chance to clear its label; operator-b takes over.
    pod("operator-b").standby();
    assertThat(leaderLabel("operator-b")).isEqualTo("false");
    pod("operator-b").leading();
    assertThat(leaderLabel("operator-b")).isEqualTo("true");
    assertThat(leaderLabel("operator-a")).isEqualTo("false");
    assertThat(leaderLabel("other")).as("pods that never led are left alone").isNull();
    assertThat(client.pods().inNamespace(NAMESPACE).withName("other").get().getMetadata().getLabels()).containsEntry("app", "x");
  }

  @Test
  void aRestartedFormerLeaderClearsItsOwnLabelBeforeServing() {
    pod("operator-a").leading();
    pod("operator-a").standby();
    assertThat(leaderLabel("operator-a")).isEqualTo("false");
  }

  @Test
  void aLabelThatCannotBeWrittenIsLoggedNotThrown() {
    pod("gone").leading(); // No such pod: every attempt fails with a 404.
    assertThat(client.pods().inNamespace(NAMESPACE).withLabel(LeaderPod.LABEL, "true").list().getItems()).isEmpty();
  }

  @Test
  void outsideAPodThereIsNoPodToLabel() {
    assertThat(LeaderPod.fromEnvironment(client, Map.of())).isNull();
    assertThat(LeaderPod.fromEnvironment(client, Map.of("POD_NAME", "operator-a"))).isNull();
    assertThat(LeaderPod.fromEnvironment(client, Map.of("POD_NAME", "operator-a", "POD_NAMESPACE", NAMESPACE))).isNotNull();
  }
}
