package io.tenantry.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The printer columns of the CRDs as the build leaves them, in the order kubectl prints them:
 * the generator's output after the build has put the columns in declaration order.
 */
class PrinterColumnsTest {

  @Test
  void tenantsShowStatePhasePlanVersionsReadyThenAgeAndOrganizationNamespaceReplicasUrlBackupsOnlyWhenWide() throws IOException {
    assertThat(columns("tenants.tenantry.io-v1.yml"))
        .extracting(CustomResourceColumnDefinition::getName, CustomResourceColumnDefinition::getPriority,
            CustomResourceColumnDefinition::getJsonPath, CustomResourceColumnDefinition::getType)
        .containsExactly(
            tuple("State", 0, ".spec.state", "string"),
            tuple("Phase", 0, ".status.phase", "string"),
            tuple("Plan", 0, ".spec.plan", "string"),
            tuple("Versions", 0, ".status.versions", "string"),
            tuple("Ready", 0, ".status.conditions[?(@.type==\"Ready\")].status", "string"),
            tuple("Age", 0, ".metadata.creationTimestamp", "date"),
            tuple("Organization", 1, ".spec.organization", "string"),
            tuple("Namespace", 1, ".status.namespace", "string"),
            tuple("Replicas", 1, ".status.replicas", "string"),
            tuple("URL", 1, ".status.urls[0]", "string"),
            tuple("BackedUp", 1, ".status.conditions[?(@.type==\"BackedUp\")].status", "string"),
            tuple("LastBackup", 1, ".status.databases[0].backup.last.finished", "date"));
  }

  @Test
  void sparePoolsShowTheBufferAndCountsThenAge() throws IOException {
    assertThat(columns("sparepools.tenantry.io-v1.yml"))
        .extracting(CustomResourceColumnDefinition::getName, CustomResourceColumnDefinition::getPriority,
            CustomResourceColumnDefinition::getJsonPath, CustomResourceColumnDefinition::getType)
        .containsExactly(
            tuple("Buffer", 0, ".spec.buffer", "integer"),
            tuple("Ready", 0, ".status.ready", "integer"),
            tuple("Provisioning", 0, ".status.provisioning", "integer"),
            tuple("Allocated", 0, ".status.allocated", "integer"),
            tuple("Age", 0, ".metadata.creationTimestamp", "date"));
  }

  private static List<CustomResourceColumnDefinition> columns(String file) throws IOException {
    try (InputStream yaml = PrinterColumnsTest.class.getResourceAsStream("/META-INF/fabric8/" + file)) {
      assertThat(yaml).as("generated CRD %s", file).isNotNull();
      CustomResourceDefinition crd = Serialization.unmarshal(yaml, CustomResourceDefinition.class);
      assertThat(crd.getSpec().getVersions()).hasSize(1);
      return crd.getSpec().getVersions().get(0).getAdditionalPrinterColumns();
    }
  }
}
