package io.tenantry.controller.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.tenantry.testsupport.TestBinaries;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The monitoring assets shipped with the chart (the alert rules and the Grafana dashboard), and
 * the metric names their PromQL uses. Public for the integration test that checks those names
 * against a running operator's {@code /metrics}.
 */
public final class MonitoringAssets {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();
  /** PromQL's aggregation operators and keywords: identifiers that are no metric. */
  private static final Set<String> KEYWORDS = Set.of("sum", "min", "max", "avg", "count", "stddev", "stdvar", "topk", "bottomk",
      "quantile", "count_values", "group", "limitk", "limit_ratio", "by", "without", "on", "ignoring", "group_left",
      "group_right", "and", "or", "unless", "bool", "offset", "atan2", "inf", "nan");
  private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w:.$])([a-zA-Z_:][a-zA-Z0-9_:]*+)(?!\\s*\\()");
  private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)");

  private MonitoringAssets() {
  }

  public static Path repository() {
    return TestBinaries.locate().toolsDir().getParent();
  }

  public static Path alerts() {
    return repository().resolve("deploy/helm/tenantry/files/tenantry-alerts.yaml");
  }

  public static Path dashboard() {
    return repository().resolve("deploy/helm/tenantry/files/tenantry-dashboard.json");
  }

  public static Path alertTests() {
    return repository().resolve("deploy/monitoring-tests/tenantry-alerts.test.yaml");
  }

  public static JsonNode alertRules() {
    return read(YAML, alerts());
  }

  public static JsonNode dashboardJson() {
    return read(JSON, dashboard());
  }

  /** The expression of every alert, in file order. */
  public static List<String> alertExpressions() {
    List<String> expressions = new ArrayList<>();
    for (JsonNode group : alertRules().path("groups")) {
      group.path("rules").forEach(rule -> expressions.add(rule.path("expr").asText()));
    }
    return expressions;
  }

  /** The expression of every panel's query, with Grafana's variables as written ({@code $job}, {@code $__rate_interval}). */
  public static List<String> dashboardExpressions() {
    List<String> expressions = new ArrayList<>();
    for (JsonNode panel : dashboardJson().path("panels")) {
      panel.path("targets").forEach(target -> expressions.add(target.path("expr").asText()));
    }
    return expressions;
  }

  /** Every metric the rules and the dashboard (its queries and its variables) read. */
  public static Set<String> usedMetricNames() {
    Set<String> names = new TreeSet<>();
    alertExpressions().forEach(e -> names.addAll(metricNames(e)));
    dashboardExpressions().forEach(e -> names.addAll(metricNames(e)));
    for (JsonNode variable : dashboardJson().path("templating").path("list")) {
      Matcher query = LABEL_VALUES.matcher(variable.path("definition").asText());
      if (query.find()) {
        names.add(query.group(1));
      }
    }
    return names;
  }

  /**
   * The metric names in a PromQL expression: identifiers that are not called (functions), not
   * keywords or aggregations, and not inside strings, label matchers, ranges or grouping lists.
   */
  public static Set<String> metricNames(String promql) {
    String bare = promql.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
        .replaceAll("\\{[^}]*}", "{}")
        .replaceAll("\\[[^]]*]", "[]")
        .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
    Set<String> names = new TreeSet<>();
    Matcher identifier = IDENTIFIER.matcher(bare);
    while (identifier.find()) {
      if (!KEYWORDS.contains(identifier.group(1))) {
        names.add(identifier.group(1));
      }
    }
    return names;
  }

  private static JsonNode read(ObjectMapper mapper, Path file) {
    try {
      return mapper.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
