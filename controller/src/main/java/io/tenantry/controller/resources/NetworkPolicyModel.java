package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import java.util.List;
import java.util.Map;

/**
 * Network isolation of a tenant namespace: all ingress denied, then allowed from the namespace's
 * own pods and from the edge namespace. Egress is left open (apps call external services and DNS).
 */
public final class NetworkPolicyModel {

  private NetworkPolicyModel() {
  }

  public static List<NetworkPolicy> networkPolicies(TenantContext ctx) {
    NetworkPolicy defaultDeny = new NetworkPolicyBuilder()
        .withMetadata(ctx.meta(Names.DEFAULT_DENY))
        .withNewSpec().withNewPodSelector().endPodSelector().withPolicyTypes("Ingress").endSpec()
        .build();
    NetworkPolicy sameNamespace = new NetworkPolicyBuilder()
        .withMetadata(ctx.meta(Names.ALLOW_SAME_NAMESPACE))
        .withNewSpec().withNewPodSelector().endPodSelector().withPolicyTypes("Ingress")
        .addNewIngress().addNewFrom().withNewPodSelector().endPodSelector().endFrom().endIngress()
        .endSpec()
        .build();
    NetworkPolicy fromEdge = new NetworkPolicyBuilder()
        .withMetadata(ctx.meta(Names.ALLOW_FROM_EDGE))
        .withNewSpec().withNewPodSelector().withMatchLabels(Map.of(Labels.COMPONENT, Labels.COMPONENT_APP)).endPodSelector()
        .withPolicyTypes("Ingress")
        .addNewIngress().addNewFrom().withNewNamespaceSelector()
        .withMatchLabels(Map.of("kubernetes.io/metadata.name", ctx.config().edgeNamespace())).endNamespaceSelector()
        .endFrom().endIngress()
        .endSpec()
        .build();
    return List.of(defaultDeny, sameNamespace, fromEdge);
  }
}
