package io.tenantry.controller.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tenantry.api.Spares;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.spares.allocation.TenantUrls;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The URL allocation answers carry follows the operator's routing settings. */
class AllocationServiceTest {

  private static TenantUrls urls(String routing) {
    return AllocationService.urls(OperatorConfig.defaults().with("{routing: " + routing + "}").routing());
  }

  @Test
  void answersCarryTheUrlTheOperatorRoutesTenantsAt() {
    assertThat(urls("{baseDomain: tenants.example.com, reservedSubdomains: []}"))
        .isEqualTo(new TenantUrls("https", "tenants.example.com"));
    assertThat(urls("{mode: ingress, baseDomain: apps.test, scheme: http, reservedSubdomains: [www]}"))
        .isEqualTo(new TenantUrls("http", "apps.test", Set.of("www")));
  }

  @Test
  void signupsAreRefusedTheConfiguredReservedSubdomains() {
    TenantUrls defaults = urls("{baseDomain: tenants.example.com}");
    assertThat(defaults.reservedSubdomains()).containsExactlyInAnyOrderElementsOf(
        OperatorConfig.defaults().routing().reservedSubdomains());
    assertThat(defaults.reserved("www")).isTrue();
    assertThat(defaults.reserved("initech")).isFalse();
  }

  @Test
  void servingIsToldAsTheSparesAreGated() {
    assertThat(urls("{baseDomain: tenants.example.com}").exposure()).isEqualTo(Spares.Exposure.ROUTED);
    assertThat(urls("{mode: gateway, baseDomain: tenants.example.com,"
        + " spareGate: {mode: forwardAuth, forwardAuthAddress: 'http://tenantry.tenantry-system.svc:8080'}}").exposure())
        .as("gated at the edge: the spare's Ready and the edge's answer").isEqualTo(Spares.Exposure.EDGE_GATED);
    assertThat(urls("{}").exposure()).isEqualTo(Spares.Exposure.NOT_ROUTED);
  }

  @Test
  void withoutRoutingAnswersCarryNoUrl() {
    assertThat(urls("{}").enabled()).as("no baseDomain").isFalse();
    assertThat(urls("{mode: none, baseDomain: tenants.example.com}").enabled()).as("mode none").isFalse();
  }
}
