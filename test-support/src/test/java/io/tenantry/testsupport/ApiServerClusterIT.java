package io.tenantry.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Test;

/** The real API server is the pinned release built from source, and it persists objects. */
@WithCluster
class ApiServerClusterIT {

  @Test
  void servesThePinnedKubernetesVersion(KubernetesClient client, TestCluster cluster) {
    String pinned = TestBinaries.locate().kubernetesVersion();
    if (cluster.kind() == ClusterKind.API_SERVER || cluster.kind() == ClusterKind.SIMULATED) {
      assertThat(client.getKubernetesVersion().getGitVersion()).isEqualTo("v" + pinned);
      assertThat(client.getKubernetesVersion().getMinor()).isEqualTo(pinned.split("\\.")[1]);
    }
    assertThat(client.getKubernetesVersion().getMajor()).isEqualTo("1");
  }

  @Test
  void storesAndReturnsObjects(KubernetesClient client) {
    String name = "api-server-it-" + System.nanoTime();
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
        .addToLabels("tenantry.io/test", "true").endMetadata().build()).create();
    try {
      assertThat(client.namespaces().withName(name).get().getMetadata().getLabels())
          .containsEntry("tenantry.io/test", "true");
    } finally {
      client.namespaces().withName(name).delete();
    }
  }
}
