package io.tenantry.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ClusterKindTest {

  @Test
  void defaultsDependOnWhetherWorkloadsMustRun() {
    assertThat(ClusterKind.select(null, false)).isEqualTo(ClusterKind.API_SERVER);
    assertThat(ClusterKind.select("", true)).isEqualTo(ClusterKind.SIMULATED);
  }

  @Test
  void aClusterThatRunsWorkloadsServesEveryTest() {
    assertThat(ClusterKind.select("kubeconfig", false)).isEqualTo(ClusterKind.KUBECONFIG);
    assertThat(ClusterKind.select("kubeconfig", true)).isEqualTo(ClusterKind.KUBECONFIG);
    assertThat(ClusterKind.select("k3s", true)).isEqualTo(ClusterKind.K3S);
    assertThat(ClusterKind.select(" Simulated ", false)).isEqualTo(ClusterKind.SIMULATED);
  }

  @Test
  void theBareApiServerNeverServesATestThatNeedsWorkloads() {
    assertThat(ClusterKind.select("api-server", true)).isEqualTo(ClusterKind.SIMULATED);
    assertThat(ClusterKind.select("api-server", false)).isEqualTo(ClusterKind.API_SERVER);
  }

  @Test
  void anUnknownClusterIsRefusedWithTheChoices() {
    assertThatThrownBy(() -> ClusterKind.select("minikube", false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tenantry.cluster: unknown cluster 'minikube', expected one of api-server, simulated, kubeconfig, k3s");
  }
}
