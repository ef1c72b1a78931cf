package io.tenantry.secretstore.sync;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Secret;
import io.tenantry.secretstore.LocalSecretStore;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.StoreUnavailableException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What TemplateSync refuses, decided before it writes anything: these syncs get no Kubernetes client
 * at all (null), so any write would fail with a NullPointerException instead of the refusal. What it
 * writes against a real API server is in {@link TemplateSyncIT}.
 */
class TemplateSyncTest {

  private static final String NAMESPACE = "tenantry-templates";

  @TempDir
  Path tmp;
  private Path root;
  private LocalSecretStore store;

  @BeforeEach
  void store() {
    root = tmp.resolve("store");
    store = LocalSecretStore.init(root, tmp.resolve("keyset.json"));
  }

  @Test
  void anEmptiedStoreDeletesNothingAndSaysWhy() {
    List<Secret> current = templates("db", "smtp", "registry");
    for (String name : List.of("db", "smtp", "registry")) {
      store.delete(Scope.template(), name);
    }

    assertThatThrownBy(() -> sync(1.0).sync(current))
        .isInstanceOfSatisfying(TemplateDeletionRefusedException.class, e -> {
          assertThat(e.refused()).containsExactly("db", "registry", "smtp");
          assertThat(e.present()).isEqualTo(3);
          assertThat(e.namespace()).isEqualTo(NAMESPACE);
        })
        .hasMessageStartingWith("refusing to delete all 3 template Secrets of namespace " + NAMESPACE
            + ": the secret store " + store.location() + " lists no template secret. Nothing was changed.")
        .hasMessageContaining("check the store and its location")
        .hasMessageEndingWith("kubectl delete secrets -n " + NAMESPACE + " -l tenantry.io/template=true");
  }

  @Test
  void aMissingStoreRootDeletesNothing() throws Exception {
    List<Secret> current = templates("db", "smtp");
    Files.move(root, tmp.resolve("moved-away"));

    assertThatThrownBy(() -> sync(1.0).sync(current))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageStartingWith("local secret store " + root + " does not exist");
  }

  @Test
  void deletingMoreThanTheShareIsRefused() {
    List<Secret> current = templates("a", "b", "c", "d", "e");
    for (String name : List.of("a", "c", "e")) {
      store.delete(Scope.template(), name);
    }

    assertThatThrownBy(() -> sync(0.5).sync(current))
        .isInstanceOfSatisfying(TemplateDeletionRefusedException.class,
            e -> assertThat(e.refused()).containsExactly("a", "c", "e"))
        .hasMessageStartingWith("refusing to delete 3 of the 5 template Secrets of namespace " + NAMESPACE
            + " (a, c, e): more than the allowed share of 0.5 at once")
        .hasMessageContaining("Nothing was changed.")
        .hasMessageContaining("kubectl delete secrets -n " + NAMESPACE + " a c e")
        .hasMessageContaining("secretStore.maxTemplateDeletionShare");
  }

  @Test
  void aShareOfZeroRefusesAnyDeletionAndLongListsAreCut() {
    List<String> names = new ArrayList<>();
    for (int i = 10; i < 22; i++) {
      names.add("s" + i);
    }
    List<Secret> current = templates(names.toArray(String[]::new));
    names.subList(0, 11).forEach(name -> store.delete(Scope.template(), name));

    assertThatThrownBy(() -> sync(0.0).sync(current))
        .isInstanceOf(TemplateDeletionRefusedException.class)
        .hasMessageContaining("(s10, s11, s12, s13, s14, s15, s16, s17, s18, s19, and 1 more)");
    assertThatThrownBy(() -> sync(0.0).sync(current.subList(10, 12)))
        .as("one of two, with a share of 0").isInstanceOf(TemplateDeletionRefusedException.class)
        .hasMessageStartingWith("refusing to delete 1 of the 2 template Secrets");
  }

  @Test
  void anEmptyStoreAndAnEmptyNamespaceChangeNothing() {
    assertThat(sync(TemplateSync.DEFAULT_MAX_DELETION_SHARE).sync(List.of()))
        .isEqualTo(new TemplateSync.Result(0, 0, 0, 0));
  }

  @Test
  void theShareIsBetweenZeroAndOne() {
    for (double share : new double[] {-0.1, 1.1, Double.NaN}) {
      assertThatThrownBy(() -> sync(share)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("maxDeletionShare must be between 0 and 1");
    }
  }

  private TemplateSync sync(double maxDeletionShare) {
    return new TemplateSync(store, null, NAMESPACE, maxDeletionShare);
  }

  /** Puts each secret into the store's template scope; returns the Secrets a synced namespace holds for them. */
  private List<Secret> templates(String... names) {
    List<Secret> secrets = new ArrayList<>();
    for (String name : names) {
      store.put(Scope.template(), name, Map.of("value", name.getBytes(UTF_8)));
      secrets.add(TemplateSync.templateSecret(NAMESPACE, store.get(Scope.template(), name).orElseThrow()));
    }
    return secrets;
  }
}
