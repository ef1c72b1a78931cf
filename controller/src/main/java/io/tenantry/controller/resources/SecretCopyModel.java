package io.tenantry.controller.resources;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.tenantry.api.WellKnown;
import java.util.LinkedHashMap;
import java.util.Map;

/** A tenant namespace's copy of a template Secret: same name, type and data, with the template's content hash and version. */
public final class SecretCopyModel {

  private SecretCopyModel() {
  }

  public static Secret copy(TenantContext ctx, Secret template) {
    Map<String, String> labels = Labels.owned(ctx.name());
    labels.put(WellKnown.TEMPLATE, "copy");
    Map<String, String> annotations = new LinkedHashMap<>();
    Map<String, String> source = template.getMetadata().getAnnotations();
    if (source != null) {
      for (String key : new String[] {WellKnown.CONTENT_HASH, WellKnown.SECRET_VERSION}) {
        if (source.containsKey(key)) {
          annotations.put(key, source.get(key));
        }
      }
    }
    return new SecretBuilder()
        .withMetadata(ctx.meta(template.getMetadata().getName(), labels))
        .editMetadata().withAnnotations(annotations).endMetadata()
        .withType(template.getType())
        .withData(template.getData())
        .build();
  }
}
