package io.tenantry.controller.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import org.junit.jupiter.api.Test;

class LeanItemStoreTest {

  @Test
  void keepsAnObjectByNamespaceAndNameWithoutItsManagedFields() {
    ConfigMap map = new ConfigMapBuilder()
        .withNewMetadata().withNamespace("tenant-acme").withName("tenant-identity").withResourceVersion("7")
        .addToLabels("tenantry.io/tenant", "acme")
        .withManagedFields(new ManagedFieldsEntryBuilder().withManager("tenantry").withOperation("Apply").build())
        .endMetadata()
        .addToData("TENANT", "acme")
        .build();
    LeanItemStore<ConfigMap> store = new LeanItemStore<>();

    store.put(store.getKey(map), map);

    ConfigMap cached = store.get("tenant-acme/tenant-identity");
    assertThat(cached.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(cached.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(cached.getMetadata().getLabels()).containsEntry("tenantry.io/tenant", "acme");
    assertThat(cached.getData()).containsEntry("TENANT", "acme");
  }
}
