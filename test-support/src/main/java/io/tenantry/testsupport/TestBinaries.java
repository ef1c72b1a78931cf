package io.tenantry.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the binaries built by {@code tools/build-test-binaries.sh} live, at the versions pinned in
 * {@code tools/versions.env} (the one place they are pinned; this class only reads it).
 */
public final class TestBinaries {

  private final Path toolsDir;
  private final Path cacheDir;
  private final Map<String, String> versions;

  private TestBinaries(Path toolsDir, Path cacheDir, Map<String, String> versions) {
    this.toolsDir = toolsDir;
    this.cacheDir = cacheDir;
    this.versions = versions;
  }

  /** Finds the tools folder (system property {@code tenantry.tools}, else upwards from the working directory). */
  public static TestBinaries locate() {
    Path tools = findToolsDir();
    String cacheEnv = System.getenv("TENANTRY_CACHE");
    Path cache = cacheEnv != null && !cacheEnv.isBlank()
        ? Path.of(cacheEnv)
        : Path.of(System.getProperty("user.home"), ".cache", "tenantry");
    return new TestBinaries(tools, cache, readVersions(tools.resolve("versions.env")));
  }

  private static Path findToolsDir() {
    String property = System.getProperty("tenantry.tools");
    if (property != null && !property.isBlank()) {
      return Path.of(property);
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("tools/versions.env"))) {
        return dir.resolve("tools");
      }
    }
    throw new IllegalStateException("cannot find tools/versions.env above " + Path.of("").toAbsolutePath()
        + "; set the system property tenantry.tools to the project's tools folder");
  }

  private static Map<String, String> readVersions(Path file) {
    try {
      Map<String, String> values = new HashMap<>();
      for (String line : Files.readAllLines(file)) {
        String trimmed = line.strip();
        int eq = trimmed.indexOf('=');
        if (!trimmed.startsWith("#") && eq > 0) {
          values.put(trimmed.substring(0, eq), trimmed.substring(eq + 1));
        }
      }
      return values;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  public String kubernetesVersion() {
    return version("KUBERNETES_VERSION");
  }

  public String version(String key) {
    String value = versions.get(key);
    if (value == null) {
      throw new IllegalStateException(key + " is not set in " + toolsDir.resolve("versions.env"));
    }
    return value;
  }

  public Path toolsDir() {
    return toolsDir;
  }

  /** The directory kube-api-test reads as KUBE_API_TEST_DIR. */
  public Path cacheDir() {
    return cacheDir;
  }

  /** The directory holding kube-apiserver, kube-controller-manager, kube-scheduler, kubectl and etcd. */
  public Path kubernetesDir() {
    return cacheDir.resolve("k8s").resolve(kubernetesVersion() + "-linux-amd64");
  }

  public Path kubectl() {
    return kubernetesDir().resolve("kubectl");
  }

  /** kwok, kwokctl or fake-gcs-server. */
  public Path tool(String name) {
    return cacheDir.resolve("bin").resolve(name);
  }

  /** Fails with the command to run when a binary has not been built. */
  public void requireBuilt(List<Path> binaries) {
    for (Path binary : binaries) {
      if (!Files.isExecutable(binary)) {
        throw new IllegalStateException(binary + " is missing: run tools/build-test-binaries.sh first");
      }
    }
  }
}
