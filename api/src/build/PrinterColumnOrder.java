import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Puts each generated CRD's printer columns in the order their {@code @AdditionalPrinterColumn}
 * annotations are declared on the resource class.
 *
 * <p>kubectl prints a custom resource's columns in the CRD's order, and fabric8's crd-generator
 * (7.5.2, like 7.6.1) emits them sorted by JSON path, which puts AGE ({@code .metadata...}) first.
 * The build runs this right after the generator (api/pom.xml, phase process-classes), with the
 * module's runtime class path, as a single-file program: it is no part of the API's jar.
 *
 * <p>Every CRD file of {@code CLASSES/META-INF/fabric8} is matched to its class (group, version
 * and kind) among the compiled classes. It fails, naming the CRD, when the generated columns are
 * not exactly the declared ones (a field-level {@code @PrinterColumn}, whose place nothing
 * declares, or two columns on one JSON path, of which the generator keeps one). A file already in
 * order is left untouched, so running it twice changes nothing.
 *
 * <p>Usage: {@code java -cp CLASSPATH PrinterColumnOrder.java CLASSES}
 */
public final class PrinterColumnOrder {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER));

  private PrinterColumnOrder() {
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: PrinterColumnOrder CLASSES_DIRECTORY");
    }
    Path classes = Path.of(args[0]);
    Map<String, Class<?>> resources = customResources(classes);
    Path crds = classes.resolve("META-INF/fabric8");
    if (!Files.isDirectory(crds)) {
      return;
    }
    try (Stream<Path> files = Files.list(crds)) {
      for (Path crd : files.filter(f -> f.getFileName().toString().endsWith("-v1.yml")).sorted().toList()) {
        reorder(crd, resources);
      }
    }
  }

  private static void reorder(Path file, Map<String, Class<?>> resources) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    JsonNode crd = YAML.readTree(text);
    String group = crd.path("spec").path("group").asText();
    String kind = crd.path("spec").path("names").path("kind").asText();
    boolean changed = false;
    for (JsonNode version : crd.path("spec").path("versions")) {
      String key = key(group, version.path("name").asText(), kind);
      Class<?> type = resources.get(key);
      if (type == null) {
        throw new IllegalStateException(file.getFileName() + ": no compiled class is the custom resource " + key);
      }
      if (version.get("additionalPrinterColumns") instanceof ArrayNode columns) {
        changed |= reorder(file, type, columns);
      }
    }
    if (changed) {
      Files.writeString(file, header(text) + YAML.writeValueAsString(crd), StandardCharsets.UTF_8);
    }
  }

  /** Sorts {@code columns} in place into {@code type}'s declaration order; whether anything moved. */
  private static boolean reorder(Path file, Class<?> type, ArrayNode columns) {
    List<String> declared = new ArrayList<>();
    for (AdditionalPrinterColumn column : type.getAnnotationsByType(AdditionalPrinterColumn.class)) {
      declared.add(column.jsonPath());
    }
    Map<String, JsonNode> generated = new HashMap<>();
    columns.forEach(column -> generated.put(column.path("jsonPath").asText(), column));
    if (!new LinkedHashSet<>(declared).equals(generated.keySet()) || declared.size() != generated.size()) {
      throw new IllegalStateException(file.getFileName() + ": the generated printer columns " + generated.keySet()
          + " are not those declared by @AdditionalPrinterColumn on " + type.getName() + " " + declared
          + " (each column must be declared there, on a JSON path of its own)");
    }
    List<JsonNode> ordered = declared.stream().map(generated::get).toList();
    boolean changed = false;
    for (int i = 0; i < ordered.size(); i++) {
      changed |= columns.get(i) != ordered.get(i);
    }
    columns.removeAll();
    ordered.forEach(columns::add);
    return changed;
  }

  /** The generator's leading comment lines, kept as they were. */
  private static String header(String text) {
    StringBuilder header = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      if (!line.startsWith("#")) {
        break;
      }
      header.append(line).append('\n');
    }
    return header.toString();
  }

  /** Every concrete custom resource class under {@code classes}, by group, version and kind. */
  private static Map<String, Class<?>> customResources(Path classes) throws IOException {
    Map<String, Class<?>> resources = new HashMap<>();
    ClassLoader loader = PrinterColumnOrder.class.getClassLoader();
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
        String name = classes.relativize(file).toString().replace(file.getFileSystem().getSeparator(), ".");
        name = name.substring(0, name.length() - ".class".length());
        if (name.endsWith("package-info") || name.endsWith("module-info")) {
          continue;
        }
        Class<?> type;
        try {
          type = Class.forName(name, false, loader);
        } catch (ClassNotFoundException e) {
          throw new IllegalStateException("cannot load " + name + " from " + classes, e);
        }
        if (CustomResource.class.isAssignableFrom(type) && !Modifier.isAbstract(type.getModifiers())) {
          @SuppressWarnings("unchecked")
          Class<? extends HasMetadata> resource = (Class<? extends HasMetadata>) type;
          resources.put(key(HasMetadata.getGroup(resource), HasMetadata.getVersion(resource), HasMetadata.getKind(resource)),
              type);
        }
      }
    }
    return resources;
  }

  private static String key(String group, String version, String kind) {
    return group + "/" + version + "/" + kind;
  }
}
