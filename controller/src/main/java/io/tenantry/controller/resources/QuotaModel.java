package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.LimitRangeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import java.util.LinkedHashMap;
import java.util.Map;

/** The plan's guardrails on resource consumption: a ResourceQuota and a LimitRange. */
public final class QuotaModel {

  private QuotaModel() {
  }

  public static ResourceQuota resourceQuota(TenantContext ctx) {
    return new ResourceQuotaBuilder()
        .withMetadata(ctx.meta(Names.QUOTA))
        .withNewSpec().withHard(quantities(ctx.plan().quota())).endSpec()
        .build();
  }

  public static LimitRange limitRange(TenantContext ctx) {
    return new LimitRangeBuilder()
        .withMetadata(ctx.meta(Names.LIMITS))
        .withNewSpec().addNewLimit().withType("Container")
        .withDefaultRequest(quantities(ctx.plan().defaultRequest()))
        .withDefault(quantities(ctx.plan().defaultLimit()))
        .endLimit().endSpec()
        .build();
  }

  static Map<String, Quantity> quantities(Map<String, String> values) {
    Map<String, Quantity> result = new LinkedHashMap<>();
    values.forEach((key, value) -> result.put(key, new Quantity(value)));
    return result;
  }
}
