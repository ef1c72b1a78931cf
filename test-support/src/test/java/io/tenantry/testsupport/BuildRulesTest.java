package io.tenantry.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.puppycrawl.tools.checkstyle.Checker;
import com.puppycrawl.tools.checkstyle.ConfigurationLoader;
import com.puppycrawl.tools.checkstyle.ConfigurationLoader.IgnoredModulesOptions;
import com.puppycrawl.tools.checkstyle.PropertiesExpander;
import com.puppycrawl.tools.checkstyle.api.AuditEvent;
import com.puppycrawl.tools.checkstyle.api.AuditListener;
import com.puppycrawl.tools.checkstyle.api.CheckstyleException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build's checkstyle rules ({@code .checkstyle/} at the repository root, run by
 * {@code mvn verify}) do what they say: each fixture in {@code src/test/resources/build-rules/}
 * breaks one rule, or none. Checkstyle runs in this JVM, once for all fixtures.
 */
class BuildRulesTest {

  private static final String FIXTURES = "build-rules/";

  /** One reported violation: the fixture, its line, the rule's name and message. */
  record Violation(String file, int line, String rule, String message) {
  }

  private static final TreeMap<String, List<Violation>> VIOLATIONS = new TreeMap<>();

  @BeforeAll
  static void runTheRulesOnEveryFixture(@TempDir Path sources) throws CheckstyleException {
    List<File> files = new ArrayList<>();
    for (String fixture : fixtureNames()) {
      String name = fixture.substring(0, fixture.length() - ".txt".length());
      files.add(copy(FIXTURES + fixture, sources.resolve(name)));
      VIOLATIONS.put(name.substring(0, name.length() - ".java".length()), new ArrayList<>());
    }
    Checker checker = new Checker();
    try {
      checker.setModuleClassLoader(Checker.class.getClassLoader());
      checker.configure(ConfigurationLoader.loadConfiguration(
          rulesDir().resolve("checkstyle.xml").toString(), new PropertiesExpander(configLoc()),
          IgnoredModulesOptions.OMIT));
      checker.addListener(new Recorder());
      checker.process(files);
    } finally {
      checker.destroy();
    }
  }

  @Test
  void aResourcesClassImportingTheApplierIsFlagged() {
    assertThat(violations("ResourcesImportsApply")).containsExactly(
        new Violation("ResourcesImportsApply", 3, "ImportControl",
            "Disallowed import - io.tenantry.controller.apply.Applier."));
  }

  @Test
  void aResourcesClassImportingTheKubernetesClientIsFlagged() {
    assertThat(violations("ResourcesImportsClient")).containsExactly(
        new Violation("ResourcesImportsClient", 3, "ImportControl",
            "Disallowed import - io.fabric8.kubernetes.client.KubernetesClient."));
  }

  @Test
  void theStatusPackageMayNotLog() {
    assertThat(violations("StatusImportsLogger")).extracting(Violation::line, Violation::rule)
        .containsExactly(tuple(3, "ImportControl"),
            tuple(4, "ImportControl"));
  }

  @Test
  void theStatusPackageMayUseResourcesAndReadiness() {
    assertThat(violations("StatusImportsResources")).isEmpty();
  }

  @Test
  void classesOutsideThePurePackagesMayImportAnything() {
    assertThat(violations("OutsideImportsClient")).isEmpty();
  }

  @Test
  void caseConversionWithoutALocaleIsFlaggedAskingForLocaleRoot() {
    List<Violation> found = violations("CaseWithoutLocale");
    assertThat(found).extracting(Violation::line).containsExactly(7, 12);
    assertThat(found).allSatisfy(v -> {
      assertThat(v.rule()).isEqualTo("CaseConversionWithoutLocale");
      assertThat(v.message()).contains("Locale.ROOT");
    });
  }

  @Test
  void caseConversionWithLocaleRootPasses() {
    assertThat(violations("CaseWithLocale")).isEmpty();
  }

  @Test
  void unusedAndRepeatedImportsAreFlagged() {
    assertThat(violations("UnusedImport")).extracting(Violation::line, Violation::rule)
        .containsExactlyInAnyOrder(tuple(3, "UnusedImports"),
            tuple(5, "RedundantImport"));
  }

  @Test
  void aMethodOverSixtyLinesIsFlaggedAndBlankLinesAndCommentsDoNotCount() {
    assertThat(violations("LongMethod")).containsExactly(new Violation("LongMethod", 6, "MethodLength",
        "Method sum length is 65 lines (max allowed is 60)."));
  }

  @Test
  void aCleanJava17ClassInAPurePackageHasNoViolation() {
    assertThat(violations("Clean")).isEmpty();
  }

  private static List<Violation> violations(String fixture) {
    assertThat(VIOLATIONS).containsKey(fixture);
    return VIOLATIONS.get(fixture);
  }

  /** Collects every violation by fixture; an exception in checkstyle fails the run. */
  private static final class Recorder implements AuditListener {

    @Override
    public void addError(AuditEvent event) {
      String file = Paths.get(event.getFileName()).getFileName().toString().replace(".java", "");
      String rule = event.getModuleId() != null ? event.getModuleId()
          : event.getSourceName().substring(event.getSourceName().lastIndexOf('.') + 1).replace("Check", "");
      VIOLATIONS.get(file).add(new Violation(file, event.getLine(), rule, event.getMessage()));
    }

    @Override
    public void addException(AuditEvent event, Throwable throwable) {
      throw new AssertionError("checkstyle failed on " + event.getFileName(), throwable);
    }

    @Override
    public void auditStarted(AuditEvent event) {
    }

    @Override
    public void auditFinished(AuditEvent event) {
    }

    @Override
    public void fileStarted(AuditEvent event) {
    }

    @Override
    public void fileFinished(AuditEvent event) {
    }
  }

  /** The fixtures, listed from the resources folder (a directory when run from the build). */
  private static List<String> fixtureNames() {
    try (Stream<Path> listed = Files.list(Paths.get(resource(FIXTURES).toURI()))) {
      return listed.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".java.txt")).sorted().toList();
    } catch (IOException | URISyntaxException e) {
      throw new IllegalStateException("cannot list " + FIXTURES, e);
    }
  }

  private static File copy(String resource, Path target) {
    try (InputStream in = resource(resource).openStream()) {
      Files.copy(in, target);
      return target.toFile();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static URL resource(String name) {
    URL url = BuildRulesTest.class.getClassLoader().getResource(name);
    assertThat(url).as("test resource %s", name).isNotNull();
    return url;
  }

  /** {@code .checkstyle/} in the nearest folder, from the working directory up, that has one. */
  private static Path rulesDir() {
    for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path rules = dir.resolve(".checkstyle");
      if (Files.isRegularFile(rules.resolve("checkstyle.xml"))) {
        return rules;
      }
    }
    throw new IllegalStateException("no .checkstyle/checkstyle.xml above " + Paths.get("").toAbsolutePath());
  }

  private static Properties configLoc() {
    Properties properties = new Properties();
    properties.setProperty("config_loc", rulesDir().toString());
    return properties;
  }
}
