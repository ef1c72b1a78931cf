package io.tenantry.controller.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ItemStoresTest {

  private static final String KEY = "tenant-acme/tenant-identity";

  private static ConfigMap identity(String resourceVersion, String tenant) {
    return new ConfigMapBuilder()
        .withNewMetadata().withNamespace("tenant-acme").withName("tenant-identity").withUid("u-1").withResourceVersion(resourceVersion)
        .addToLabels("tenantry.io/tenant", "acme")
        .withManagedFields(new ManagedFieldsEntryBuilder().withManager("tenantry").withOperation("Apply").build())
        .endMetadata()
        .addToData("TENANT", tenant)
        .build();
  }

  /** What the stores give back: the object without its managed fields (decoded, they are an empty list). */
  private static ConfigMap withoutManagedFields(ConfigMap map) {
    map.getMetadata().setManagedFields(List.of());
    return map;
  }

  @Test
  void leanStoreKeepsAnObjectByNamespaceAndNameWithoutItsManagedFields() {
    LeanItemStore<ConfigMap> store = new LeanItemStore<>();

    store.put(store.getKey(identity("7", "acme")), identity("7", "acme"));

    ConfigMap cached = store.get(KEY);
    assertThat(cached.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(cached.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(cached.getMetadata().getLabels()).containsEntry("tenantry.io/tenant", "acme");
    assertThat(cached.getData()).containsEntry("TENANT", "acme");
  }

  @Test
  void compactStoreGivesBackTheSameObjectBeforeAndAfterCompactingIt() {
    CompactItemStore<ConfigMap> store = new CompactItemStore<>(ConfigMap.class, new KubernetesSerialization());
    assertThat(store.put(store.getKey(identity("7", "acme")), identity("7", "acme"))).isNull();
    ConfigMap live = store.get(KEY);
    assertThat(live.getMetadata().getManagedFields()).isNullOrEmpty();

    store.compact(KEY);

    ConfigMap decoded = store.get(KEY);
    assertThat(decoded).isNotSameAs(live).isEqualTo(withoutManagedFields(identity("7", "acme")));
    assertThat(store.keySet()).containsExactly(KEY);
    assertThat(store.values()).containsExactly(decoded);
    assertThat(store.size()).isEqualTo(1);
  }

  @Test
  void compactStoreReturnsTheReplacedObjectForTheInformersEventsAndIndexesAndKeepsTheNewOneDecoded() {
    CompactItemStore<ConfigMap> store = new CompactItemStore<>(ConfigMap.class, new KubernetesSerialization());
    store.put(KEY, identity("7", "acme"));
    store.compact(KEY);

    ConfigMap replaced = store.put(KEY, identity("8", "Acme Inc"));

    assertThat(replaced).isEqualTo(withoutManagedFields(identity("7", "acme")));
    assertThat(store.get(KEY)).isSameAs(store.get(KEY)).extracting(ConfigMap::getData).isEqualTo(Map.of("TENANT", "Acme Inc"));
    assertThat(store.remove(KEY).getData()).containsEntry("TENANT", "Acme Inc");
    assertThat(store.get(KEY)).isNull();
    assertThat(store.size()).isZero();
    store.compact(KEY); // Gone: nothing to compact, and nothing comes back.
    assertThat(store.get(KEY)).isNull();
  }

  @Test
  void compactStoreGivesAnObjectsFingerprintIdentityDecodedOrNot() {
    CompactItemStore<ConfigMap> store = new CompactItemStore<>(ConfigMap.class, new KubernetesSerialization());
    store.put(KEY, identity("7", "acme"));

    assertThat(store.identity(KEY)).isEqualTo(ClusterView.identity("u-1", "7"));
    store.compact(KEY);
    assertThat(store.identity(KEY)).isEqualTo(ClusterView.identity("u-1", "7"));
    assertThat(store.identity("tenant-acme/other")).isZero();
    store.put(KEY, identity("8", "acme"));
    assertThat(store.identity(KEY)).isEqualTo(ClusterView.identity("u-1", "8"));
  }
}
