package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import io.tenantry.api.v1alpha1.AppSpec;
import io.tenantry.controller.config.EgressRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Network isolation of a tenant namespace: all ingress and egress denied, then allowed within the
 * namespace, from the edge namespace to the exposed apps' ports, to the cluster DNS, and to the plan's egress
 * destinations, which never include the cloud metadata address (a compromised app must not read
 * the node's credentials, reach other tenants or clusters' private services); backup pods also
 * reach the operator's transfer endpoint.
 *
 * <p>What applies to every pod is one policy, {@code tenant-isolation}: selecting them all for both
 * directions denies the rest, and its rules allow the namespace, DNS and the plan's destinations. One
 * object, not one per rule: each is a write for every spare a pool builds. The edge's and the backup
 * pods' rules select other pods, so they are policies of their own.
 */
public final class NetworkPolicyModel {

  private static final String NAMESPACE_NAME = "kubernetes.io/metadata.name";

  private NetworkPolicyModel() {
  }

  public static List<NetworkPolicy> networkPolicies(TenantContext ctx) {
    List<NetworkPolicy> policies = new ArrayList<>(List.of(isolation(ctx)));
    List<AppSpec> exposed = AppModel.exposed(ctx);
    if (!exposed.isEmpty()) {
      policies.add(fromEdge(ctx, exposed));
    }
    if (ctx.config().backups().enabled()) {
      policies.add(toTransfer(ctx));
    }
    return policies;
  }

  /** Every pod: ingress from the namespace only; egress to the namespace, the cluster DNS and the plan's destinations. */
  private static NetworkPolicy isolation(TenantContext ctx) {
    List<NetworkPolicyEgressRule> egress = new ArrayList<>(List.of(
        new NetworkPolicyEgressRuleBuilder().addNewTo().withNewPodSelector().endPodSelector().endTo().build(),
        new NetworkPolicyEgressRuleBuilder().addNewTo().withNewNamespaceSelector()
            .withMatchLabels(Map.of(NAMESPACE_NAME, ctx.config().dnsNamespace())).endNamespaceSelector().endTo()
            .addToPorts(new NetworkPolicyPortBuilder().withProtocol("UDP").withPort(new IntOrString(53)).build(),
                new NetworkPolicyPortBuilder().withProtocol("TCP").withPort(new IntOrString(53)).build())
            .build()));
    ctx.plan().egress().forEach(rule -> egress.add(egressRule(rule)));
    return policy(ctx, Names.ISOLATION).withNewSpec().withNewPodSelector().endPodSelector()
        .withPolicyTypes("Ingress", "Egress")
        .addNewIngress().addNewFrom().withNewPodSelector().endPodSelector().endFrom().endIngress()
        .withEgress(egress)
        .endSpec().build();
  }

  /** The edge reaches the exposed apps (those with routes) on their ports, and nothing else. */
  private static NetworkPolicy fromEdge(TenantContext ctx, List<AppSpec> exposed) {
    return policy(ctx, Names.ALLOW_FROM_EDGE).withNewSpec()
        .withNewPodSelector().addToMatchLabels(Labels.COMPONENT, Labels.COMPONENT_APP)
        .addNewMatchExpression().withKey(Labels.NAME).withOperator("In").withValues(exposed.stream().map(AppSpec::getName).toList())
        .endMatchExpression().endPodSelector()
        .withPolicyTypes("Ingress")
        .addNewIngress().addNewFrom().withNewNamespaceSelector()
        .withMatchLabels(Map.of(NAMESPACE_NAME, ctx.config().edgeNamespace())).endNamespaceSelector().endFrom()
        .withPorts(exposed.stream().map(AppSpec::getPort).distinct()
            .map(port -> new NetworkPolicyPortBuilder().withProtocol("TCP").withPort(new IntOrString(port)).build()).toList())
        .endIngress()
        .endSpec().build();
  }

  /**
   * Backup pods reach the operator's transfer endpoint (in the operator's namespace, on its port),
   * where their one-object token is all they can use; no other pod of the tenant does.
   */
  private static NetworkPolicy toTransfer(TenantContext ctx) {
    return policy(ctx, Names.ALLOW_BACKUP_TRANSFER).withNewSpec()
        .withNewPodSelector().addToMatchLabels(Labels.COMPONENT, Labels.COMPONENT_BACKUP).endPodSelector()
        .withPolicyTypes("Egress")
        .addNewEgress().addNewTo().withNewNamespaceSelector()
        .withMatchLabels(Map.of(NAMESPACE_NAME, ctx.config().operatorNamespace())).endNamespaceSelector().endTo()
        .addToPorts(new NetworkPolicyPortBuilder().withProtocol("TCP")
            .withPort(new IntOrString(ctx.config().backups().transferPort())).build())
        .endEgress()
        .endSpec().build();
  }

  private static NetworkPolicyBuilder policy(TenantContext ctx, String name) {
    return new NetworkPolicyBuilder().withMetadata(ctx.meta(name));
  }

  private static NetworkPolicyEgressRule egressRule(EgressRule rule) {
    return new NetworkPolicyEgressRuleBuilder()
        .addNewTo().withNewIpBlock().withCidr(rule.cidr()).withExcept(rule.exceptWithMetadata()).endIpBlock().endTo()
        .withPorts(rule.ports().stream()
            .map(port -> new NetworkPolicyPortBuilder().withProtocol("TCP").withPort(new IntOrString(port)).build()).toList())
        .build();
  }
}
