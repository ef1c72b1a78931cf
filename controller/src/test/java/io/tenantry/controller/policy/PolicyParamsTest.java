package io.tenantry.controller.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.tenantry.controller.config.OperatorConfig;
import org.junit.jupiter.api.Test;

class PolicyParamsTest {

  private static final OperatorConfig CONFIG = OperatorConfig.defaults()
      .with("{templateNamespace: templates-x, routing: {reservedSubdomains: [www, api, mail]}}");

  @Test
  void theParametersAreAConfigMapOfTheOperatorInTheTemplateNamespaceListingTheReservedSubdomains() {
    ConfigMap params = PolicyParams.desired(CONFIG);
    assertThat(params.getMetadata().getName()).isEqualTo("tenantry-policy-params");
    assertThat(params.getMetadata().getNamespace()).isEqualTo("templates-x");
    assertThat(params.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "tenantry");
    assertThat(params.getData()).containsExactlyEntriesOf(java.util.Map.of("reservedSubdomains", "www,api,mail"));
  }

  @Test
  void noReservedSubdomainIsAnEmptyList() {
    assertThat(PolicyParams.desired(CONFIG.with("{routing: {reservedSubdomains: []}}")).getData())
        .containsEntry("reservedSubdomains", "");
  }

  @Test
  void theClusterCopyIsUpToDateWhenItHoldsTheDataAndLabelsWhateverElseItHolds() {
    ConfigMap want = PolicyParams.desired(CONFIG);
    assertThat(PolicyParams.upToDate(null, want)).as("missing").isFalse();
    assertThat(PolicyParams.upToDate(want, want)).isTrue();
    assertThat(PolicyParams.upToDate(new ConfigMapBuilder(want).editMetadata().addToLabels("team", "edge").endMetadata()
        .addToData("priorityClasses", "").build(), want)).as("another key and label besides").isTrue();
    assertThat(PolicyParams.upToDate(new ConfigMapBuilder(want).addToData("reservedSubdomains", "www").build(), want))
        .as("the list edited by hand").isFalse();
    assertThat(PolicyParams.upToDate(new ConfigMapBuilder(want).withData(null).build(), want)).as("no data").isFalse();
    assertThat(PolicyParams.upToDate(new ConfigMapBuilder(want).editMetadata().withLabels(null).endMetadata().build(), want))
        .as("not labelled as the operator's: its cache would not see it").isFalse();
  }
}
