package io.tenantry.controller.operator;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.tenantry.testsupport.TestBinaries;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The helm binary tools/build-test-binaries.sh builds, run on the chart deploy/helm/tenantry, and
 * what it renders as YAML trees (duplicate keys refused, as the API server's strict decoding does).
 */
final class Helm {

  static final String RELEASE = "tenantry";
  static final String NAMESPACE = "tenantry-system";
  private static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());

  /** What a helm run printed, and how it ended. */
  record Result(int exit, String out, String err) {

    Result ok() {
      if (exit != 0) {
        throw new AssertionError("helm failed (" + exit + "): " + err + out);
      }
      return this;
    }
  }

  private Helm() {
  }

  static Path root() {
    return TestBinaries.locate().toolsDir().getParent();
  }

  static Path chart() {
    return root().resolve("deploy/helm/tenantry");
  }

  /** Runs helm with {@code args} (and {@code kubeconfig}, when not null), waiting at most five minutes. */
  static Result run(Path kubeconfig, List<String> args) {
    Path helm = TestBinaries.locate().tool("helm");
    TestBinaries.locate().requireBuilt(List.of(helm));
    List<String> command = new ArrayList<>(List.of(helm.toString()));
    command.addAll(args);
    if (kubeconfig != null) {
      command.addAll(List.of("--kubeconfig", kubeconfig.toString()));
    }
    return exec(command);
  }

  /** Runs a command from the project's root; its output is read from files, so neither stream can block it. */
  static Result exec(List<String> command) {
    try {
      Path out = Files.createTempFile("helm-out-", ".txt");
      Path err = Files.createTempFile("helm-err-", ".txt");
      try {
        // Helm's own cache and configuration stay out of the user's home.
        ProcessBuilder builder = new ProcessBuilder(command).directory(root().toFile())
            .redirectOutput(out.toFile()).redirectError(err.toFile());
        Path home = Files.createDirectories(Path.of("target", "helm-home").toAbsolutePath());
        builder.environment().put("HELM_CACHE_HOME", home.resolve("cache").toString());
        builder.environment().put("HELM_CONFIG_HOME", home.resolve("config").toString());
        builder.environment().put("HELM_DATA_HOME", home.resolve("data").toString());
        Process process = builder.start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
          process.destroyForcibly();
          throw new AssertionError("timed out: " + command);
        }
        return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** {@code helm template} of the chart as release "tenantry" in tenantry-system, with {@code args} (--set ...). */
  static Result template(String... args) {
    List<String> command = new ArrayList<>(List.of("template", RELEASE, chart().toString(), "--namespace", NAMESPACE));
    command.addAll(List.of(args));
    return run(null, command);
  }

  /** The objects of the chart rendered with {@code args}. */
  static List<JsonNode> render(String... args) {
    return objects(template(args).ok().out());
  }

  /** The documents of a multi-document YAML stream, empty ones left out. */
  static List<JsonNode> objects(String yaml) {
    try (MappingIterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(yaml)) {
      List<JsonNode> objects = new ArrayList<>();
      while (docs.hasNext()) {
        JsonNode doc = docs.next();
        if (doc != null && !doc.isNull() && !doc.isEmpty()) {
          objects.add(doc);
        }
      }
      return objects;
    } catch (IOException e) {
      throw new UncheckedIOException("not YAML: " + e.getMessage(), e);
    }
  }

  /** The one object of {@code kind} named {@code name}. */
  static JsonNode find(List<JsonNode> objects, String kind, String name) {
    return objects.stream()
        .filter(o -> kind.equals(o.path("kind").asText()) && name.equals(o.path("metadata").path("name").asText()))
        .findFirst().orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in the render"));
  }

  /** Every object of {@code kind}. */
  static List<JsonNode> ofKind(List<JsonNode> objects, String kind) {
    return objects.stream().filter(o -> kind.equals(o.path("kind").asText())).toList();
  }
}
