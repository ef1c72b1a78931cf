package io.tenantry.spares.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeContextsTest {

  @TempDir
  Path dir;

  private Path kubeconfig(String file, String context, String server) throws Exception {
    Path path = dir.resolve(file);
    Files.writeString(path, """
        apiVersion: v1
        kind: Config
        clusters:
        - name: %1$s
          cluster:
            server: %2$s
        users:
        - name: %1$s
          user:
            token: not-a-real-token
        contexts:
        - name: %1$s
          context:
            cluster: %1$s
            user: %1$s
        current-context: %1$s
        """.formatted(context, server));
    return path;
  }

  @Test
  void readsContextsAcrossFilesAndConnectsToTheNamedOne() throws Exception {
    KubeContexts contexts = KubeContexts.load(List.of(
        kubeconfig("a.yaml", "east", "https://east.example:6443"),
        kubeconfig("b.yaml", "west", "https://west.example:6443")));

    assertThat(contexts.names()).containsExactly("east", "west");
    try (KubernetesClient west = contexts.connect("west")) {
      assertThat(west.getConfiguration().getMasterUrl()).startsWith("https://west.example:6443");
    }
  }

  @Test
  void anUnknownContextIsNamed() throws Exception {
    KubeContexts contexts = KubeContexts.load(List.of(kubeconfig("a.yaml", "east", "https://east.example:6443")));

    assertThatThrownBy(() -> contexts.connect("north"))
        .isInstanceOf(FleetInputException.class)
        .hasMessage("context: no kubeconfig context named north; known: east");
  }

  @Test
  void anUnreadableFileIsRefused() {
    assertThatThrownBy(() -> KubeContexts.load(List.of(dir.resolve("missing.yaml"))))
        .isInstanceOf(FleetInputException.class)
        .hasMessageContaining("kubeconfig: cannot read");
  }
}
