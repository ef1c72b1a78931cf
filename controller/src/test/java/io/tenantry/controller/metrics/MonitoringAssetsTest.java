package io.tenantry.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.tenantry.testsupport.TestBinaries;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert rules and the dashboard the chart ships (deploy/helm/tenantry/files), checked as
 * Prometheus checks them: promtool (built from its pinned Go module by tools/build-test-binaries.sh)
 * accepts the rules, their tests make each alert fire and stay quiet, and every dashboard query
 * parses. No cluster: a unit test.
 */
class MonitoringAssetsTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static Path promtool;

  @BeforeAll
  static void locatePromtool() {
    TestBinaries binaries = TestBinaries.locate();
    promtool = binaries.tool("promtool");
    binaries.requireBuilt(List.of(promtool));
  }

  private record Run(int exitCode, String output) {
  }

  private static Run promtool(Path workingDirectory, String... arguments) throws Exception {
    List<String> command = new ArrayList<>(List.of(promtool.toString()));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).directory(workingDirectory.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("promtool %s finished", arguments[0]).isTrue();
    return new Run(process.exitValue(), output);
  }

  @Test
  void promtoolChecksTheAlertRulesClean() throws Exception {
    Run check = promtool(MonitoringAssets.repository(), "check", "rules", MonitoringAssets.alerts().toString());

    assertThat(check.exitCode()).as("promtool check rules:\n%s", check.output()).isZero();
    assertThat(check.output()).contains("SUCCESS: 10 rules found");
  }

  @Test
  void theRuleTestsMakeEachAlertFireAndStayQuiet() throws Exception {
    Path tests = MonitoringAssets.alertTests();
    Run run = promtool(tests.getParent(), "test", "rules", tests.getFileName().toString());
    assertThat(run.exitCode()).as("promtool test rules:\n%s", run.output()).isZero();

    Set<String> fires = new TreeSet<>();
    Set<String> quiet = new TreeSet<>();
    for (JsonNode test : YAML.readTree(tests.toFile()).path("tests")) {
      for (JsonNode expectation : test.path("alert_rule_test")) {
        (expectation.path("exp_alerts").isEmpty() ? quiet : fires).add(expectation.path("alertname").asText());
      }
    }
    Set<String> alerts = alertNames();
    assertThat(fires).as("alerts some test makes fire").isEqualTo(alerts);
    assertThat(quiet).as("alerts some test keeps quiet").isEqualTo(alerts);
  }

  @Test
  void everyAlertSaysWhatIsWrongAndWhatToDoInOneLine() {
    for (JsonNode group : MonitoringAssets.alertRules().path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        String alert = rule.path("alert").asText();
        assertThat(rule.path("labels").path("severity").asText()).as(alert).isIn("critical", "warning");
        assertThat(rule.path("annotations").path("summary").asText()).as(alert).isNotBlank();
        assertThat(rule.path("annotations").path("description").asText()).as(alert).isNotBlank();
        assertThat(rule.path("annotations").path("runbook").asText()).as(alert).isNotBlank().doesNotContain("\n");
      }
    }
  }

  @Test
  void everyDashboardQueryParsesAsPromql(@TempDir Path temporary) throws Exception {
    // promtool checks expressions in rule files: each query becomes a recording rule, Grafana's variables given values.
    StringBuilder rules = new StringBuilder("groups:\n- name: dashboard\n  rules:\n");
    List<String> expressions = MonitoringAssets.dashboardExpressions();
    for (int i = 0; i < expressions.size(); i++) {
      String expression = expressions.get(i).replace("$__rate_interval", "5m").replace("$job", ".+");
      rules.append("  - record: dashboard:query").append(i).append("\n    expr: ")
          .append(new ObjectMapper().writeValueAsString(expression)).append('\n');
    }
    Path file = Files.writeString(temporary.resolve("dashboard-queries.yaml"), rules);

    Run check = promtool(temporary, "check", "rules", file.toString());

    assertThat(check.exitCode()).as("promtool check rules on the dashboard's queries:\n%s\n%s", check.output(), rules).isZero();
    assertThat(expressions).hasSizeGreaterThan(30);
  }

  @Test
  void theDashboardHasARowPerConcernAndEveryPanelQueriesTheChosenJob() {
    JsonNode dashboard = MonitoringAssets.dashboardJson();
    List<String> rows = new ArrayList<>();
    Set<Integer> ids = new HashSet<>();
    for (JsonNode panel : dashboard.path("panels")) {
      assertThat(ids.add(panel.path("id").asInt())).as("panel id %s is unique", panel.path("id")).isTrue();
      if (panel.path("type").asText().equals("row")) {
        rows.add(panel.path("title").asText());
        continue;
      }
      String title = panel.path("title").asText();
      assertThat(panel.path("datasource").path("uid").asText()).as(title).isEqualTo("${datasource}");
      assertThat(panel.path("description").asText()).as(title).isNotBlank();
      assertThat(panel.path("targets")).as(title).isNotEmpty()
          .allSatisfy(target -> assertThat(target.path("expr").asText()).contains("job=~\"$job\""));
    }
    assertThat(rows).containsExactly("Fleet overview", "Spare pools and signups", "Rollouts", "Work queue", "Stores", "Backups",
        "JVM and HTTP");
    assertThat(dashboard.path("uid").asText()).isEqualTo("tenantry-fleet");
  }

  @Test
  void everyMetricTheRulesAndTheDashboardUseIsDocumented() throws IOException {
    String operating = Files.readString(MonitoringAssets.repository().resolve("docs/operating.md"));

    assertThat(MonitoringAssets.usedMetricNames()).isNotEmpty().allSatisfy(name ->
        assertThat(operating).as("docs/operating.md names %s", name).contains(name.replaceAll("_(bucket|count|sum|max)$", "")));
  }

  @Test
  void metricNamesAreReadOutOfPromql() {
    assertThat(MonitoringAssets.metricNames("histogram_quantile(0.99, sum by (name, le) (rate(workqueue_queue_duration_seconds_bucket"
        + "{job=~\"$job\",name=~\"tenants|sparepools\"}[$__rate_interval])))"))
        .containsExactly("workqueue_queue_duration_seconds_bucket");
    assertThat(MonitoringAssets.metricNames("max(tenantry_leader) == 0 or absent(tenantry_leader)")).containsExactly("tenantry_leader");
    assertThat(MonitoringAssets.metricNames("max by (pool) (a_ready{status=\"ready\"}) == 0\n  and on (pool) max by (pool) (b_buffer) > 0"))
        .containsExactly("a_ready", "b_buffer");
  }

  private static Set<String> alertNames() {
    Set<String> names = new TreeSet<>();
    for (JsonNode group : MonitoringAssets.alertRules().path("groups")) {
      group.path("rules").forEach(rule -> names.add(rule.path("alert").asText()));
    }
    return names;
  }
}
