package io.tenantry.controller.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.testsupport.TestBinaries;
import io.tenantry.testsupport.TestCluster;
import io.tenantry.testsupport.WithCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The plain manifests (deploy/manifests/tenantry.yaml, the chart's render) apply server-side to a
 * real API server with kubectl, as the install instructions say: every object is there afterwards
 * and the CRDs are established. (HelmChartIT checks the admission policies' type checking, which
 * needs the controller manager of a simulated cluster.)
 */
@WithCluster
class RenderedManifestsIT {

  @Test
  void thePlainManifestsApplyServerSide(TestCluster cluster, KubernetesClient client) throws Exception {
    Path kubeconfig = Files.createTempFile("kubeconfig-", ".yaml");
    try {
      Files.writeString(kubeconfig, cluster.kubeconfigYaml());
      Helm.Result apply = Helm.exec(List.of(TestBinaries.locate().kubectl().toString(), "--kubeconfig", kubeconfig.toString(),
          "apply", "--server-side", "-f", "deploy/manifests/tenantry.yaml"));
      assertThat(apply.exit()).as("kubectl apply: %s%s", apply.out(), apply.err()).isZero();
    } finally {
      Files.delete(kubeconfig);
    }

    List<HasMetadata> shipped = OperatorHarness.shippedManifests(client);
    assertThat(shipped).extracting(HasMetadata::getKind).contains("CustomResourceDefinition", "Namespace", "ServiceAccount",
        "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding", "ConfigMap", "Deployment", "Service", "PodDisruptionBudget", "NetworkPolicy");
    for (HasMetadata object : shipped) {
      assertThat(client.resource(object).get()).as("%s %s", object.getKind(), object.getMetadata().getName()).isNotNull();
    }

    for (String crd : List.of("tenants.tenantry.io", "sparepools.tenantry.io")) {
      await().atMost(Duration.ofSeconds(30)).until(() -> client.apiextensions().v1().customResourceDefinitions().withName(crd).get()
          .getStatus().getConditions().stream().anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus())));
    }
  }
}
