package io.tenantry.controller.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteBuilder;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteStatusBuilder;
import org.junit.jupiter.api.Test;

/** Which Gateway verdicts on a tenant's HTTPRoute make its Routed condition False, and when it has judged the route. */
class GatewayVerdictTest {

  @Test
  void aRouteNoControllerHasLookedAtIsNotRefused() {
    assertThat(GatewayVerdict.refusal(route(3), "edge", "tenantry")).isEmpty();
  }

  @Test
  void unresolvedBackendsAreARefusalNamingTheGatewayTheRouteAndTheReason() {
    HTTPRoute route = withVerdict(route(3), "edge", "ResolvedRefs", "False", "BackendNotFound", 3);
    assertThat(GatewayVerdict.refusal(route, "edge", "tenantry")).contains(
        "Gateway edge/tenantry refused HTTPRoute tenant-acme/tenant: ResolvedRefs=False BackendNotFound: because");
  }

  @Test
  void onlyThisGatewaysVerdictOnThisGenerationCounts() {
    assertThat(GatewayVerdict.refusal(withVerdict(route(3), "edge", "Accepted", "False", "NotAllowedByListeners", 2),
        "edge", "tenantry")).as("a verdict on generation 2").isEmpty();
    assertThat(GatewayVerdict.refusal(withVerdict(route(3), "other", "Accepted", "False", "NotAllowedByListeners", 3),
        "edge", "tenantry")).as("another Gateway's verdict").isEmpty();
    assertThat(GatewayVerdict.refusal(withVerdict(route(3), "edge", "Accepted", "True", "Accepted", 3), "edge", "tenantry"))
        .isEmpty();
  }

  @Test
  void theGatewayHasJudgedARouteOnceItsAcceptedConditionIsAtTheRoutesGenerationEitherWay() {
    assertThat(GatewayVerdict.given(route(3), "edge", "tenantry")).as("not looked at yet").isFalse();
    assertThat(GatewayVerdict.given(withVerdict(route(3), "edge", "Accepted", "True", "Accepted", 2), "edge", "tenantry"))
        .as("judged as it was at generation 2").isFalse();
    assertThat(GatewayVerdict.given(withVerdict(route(3), "other", "Accepted", "True", "Accepted", 3), "edge", "tenantry"))
        .as("by another Gateway").isFalse();
    assertThat(GatewayVerdict.given(withVerdict(route(3), "edge", "Accepted", "True", "Accepted", 3), "edge", "tenantry")).isTrue();
    assertThat(GatewayVerdict.given(withVerdict(route(3), "edge", "Accepted", "False", "NotAllowedByListeners", 3), "edge",
        "tenantry")).as("refused is judged too").isTrue();
  }

  private static HTTPRoute route(long generation) {
    return new HTTPRouteBuilder().withNewMetadata().withNamespace("tenant-acme").withName("tenant").withGeneration(generation)
        .endMetadata().build();
  }

  private static HTTPRoute withVerdict(HTTPRoute route, String gatewayNamespace, String type, String status, String reason,
      long observedGeneration) {
    route.setStatus(new HTTPRouteStatusBuilder().addNewParent().withControllerName("traefik.io/gateway-controller")
        .withNewParentRef().withName("tenantry").withNamespace(gatewayNamespace).endParentRef()
        .addToConditions(new ConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage("because")
            .withObservedGeneration(observedGeneration).build())
        .endParent().build());
    return route;
  }
}
