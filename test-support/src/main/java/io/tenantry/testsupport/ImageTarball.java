package io.tenantry.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A container image tarball opened into a root filesystem, what a container runtime would start
 * from: the {@code docker save} layout that Jib's {@code buildTar} writes (manifest.json, the
 * configuration, gzipped or plain layer tars), or an OCI image layout (index.json, blobs/). No
 * container runtime is needed; the layers are unpacked by the machine's {@code tar}.
 */
public final class ImageTarball {

  private static final ObjectMapper JSON = new ObjectMapper();

  private ImageTarball() {
  }

  /** The operator image {@code mvn package} writes: controller/target/tenantry-operator-image.tar. */
  public static Path operatorImage() {
    Path tar = TestBinaries.locate().toolsDir().getParent().resolve("controller/target/tenantry-operator-image.tar");
    if (!Files.isRegularFile(tar)) {
      throw new IllegalStateException(tar + " is missing: build it with mvn package -pl controller -am -DskipTests");
    }
    return tar;
  }

  /**
   * Unpacks the image's layers in order into {@code rootfs} (made if missing), honouring whiteouts
   * ({@code .wh.NAME} deletes NAME of a lower layer, {@code .wh..wh..opq} empties its directory);
   * returns the image's configuration. Run as root, owners and modes are the image's.
   */
  public static ImageConfig extract(Path tar, Path rootfs) throws IOException {
    Path unpacked = Files.createTempDirectory("image-tarball-");
    try {
      run(List.of("tar", "-xf", tar.toAbsolutePath().toString(), "-C", unpacked.toString()));
      Files.createDirectories(rootfs);
      Layout layout = Files.isRegularFile(unpacked.resolve("manifest.json")) ? dockerSave(unpacked) : ociLayout(unpacked);
      for (Path layer : layout.layers()) {
        applyWhiteouts(layer, rootfs);
        run(List.of("tar", "-xf", layer.toString(), "-C", rootfs.toString(), "--numeric-owner",
            "--exclude=.wh.*", "--exclude=*/.wh.*"));
      }
      return ImageConfig.parse(JSON.readTree(layout.config().toFile()));
    } finally {
      deleteRecursively(unpacked);
    }
  }

  private record Layout(Path config, List<Path> layers) {
  }

  private static Layout dockerSave(Path dir) throws IOException {
    JsonNode manifest = JSON.readTree(dir.resolve("manifest.json").toFile()).get(0);
    List<Path> layers = new ArrayList<>();
    manifest.get("Layers").forEach(layer -> layers.add(dir.resolve(layer.asText())));
    return new Layout(dir.resolve(manifest.get("Config").asText()), layers);
  }

  private static Layout ociLayout(Path dir) throws IOException {
    if (!Files.isRegularFile(dir.resolve("index.json"))) {
      throw new IOException("neither manifest.json (docker save) nor index.json (OCI layout) in the image tarball");
    }
    JsonNode index = JSON.readTree(dir.resolve("index.json").toFile());
    JsonNode manifest = JSON.readTree(blob(dir, index.get("manifests").get(0).get("digest").asText()).toFile());
    List<Path> layers = new ArrayList<>();
    for (JsonNode layer : manifest.get("layers")) {
      layers.add(blob(dir, layer.get("digest").asText()));
    }
    return new Layout(blob(dir, manifest.get("config").get("digest").asText()), layers);
  }

  private static Path blob(Path dir, String digest) {
    int colon = digest.indexOf(':');
    return dir.resolve("blobs").resolve(digest.substring(0, colon)).resolve(digest.substring(colon + 1));
  }

  private static void applyWhiteouts(Path layer, Path rootfs) throws IOException {
    for (String entry : run(List.of("tar", "-tf", layer.toString())).lines().toList()) {
      String path = entry.startsWith("./") ? entry.substring(2) : entry;
      int slash = path.lastIndexOf('/');
      String dir = slash < 0 ? "" : path.substring(0, slash + 1);
      String name = path.substring(slash + 1);
      if (name.equals(".wh..wh..opq")) {
        Path opaque = rootfs.resolve(dir);
        if (Files.isDirectory(opaque)) {
          try (Stream<Path> children = Files.list(opaque)) {
            for (Path child : children.toList()) {
              deleteRecursively(child);
            }
          }
        }
      } else if (name.startsWith(".wh.")) {
        deleteRecursively(rootfs.resolve(dir + name.substring(".wh.".length())));
      }
    }
  }

  static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static String run(List<String> command) throws IOException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new IOException(String.join(" ", command) + " failed:\n" + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IOException("interrupted: " + String.join(" ", command), e);
    }
    return out;
  }

  /**
   * What the image's configuration says a container runs: {@code entrypoint} then {@code cmd}
   * (either may be empty), as {@code user} ("uid", "uid:gid" or names from the image's
   * /etc/passwd), with {@code env}, in {@code workingDir}.
   */
  public record ImageConfig(List<String> entrypoint, List<String> cmd, String user, Map<String, String> env,
      String workingDir, Map<String, String> labels, List<String> exposedPorts) {

    /** The command line a container runs when given {@code args} (Kubernetes' {@code args}: they replace {@code cmd}). */
    public List<String> command(List<String> args) {
      List<String> command = new ArrayList<>(entrypoint);
      command.addAll(args.isEmpty() ? cmd : args);
      return command;
    }

    static ImageConfig parse(JsonNode image) {
      JsonNode config = image.path("config");
      Map<String, String> env = new LinkedHashMap<>();
      config.path("Env").forEach(e -> {
        String pair = e.asText();
        int eq = pair.indexOf('=');
        env.put(eq < 0 ? pair : pair.substring(0, eq), eq < 0 ? "" : pair.substring(eq + 1));
      });
      Map<String, String> labels = new LinkedHashMap<>();
      config.path("Labels").fields().forEachRemaining(l -> labels.put(l.getKey(), l.getValue().asText()));
      List<String> ports = new ArrayList<>();
      config.path("ExposedPorts").fieldNames().forEachRemaining(ports::add);
      return new ImageConfig(strings(config.path("Entrypoint")), strings(config.path("Cmd")),
          config.path("User").asText(""), env, config.path("WorkingDir").asText(""), labels, ports);
    }

    private static List<String> strings(JsonNode array) {
      List<String> values = new ArrayList<>();
      array.forEach(v -> values.add(v.asText()));
      return values;
    }
  }
}
