package io.tenantry.controller.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.fakes.InMemorySecretStore;
import io.tenantry.controller.lifecycle.TenantCleanup;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The operator's /metrics as wired: JVM and process metrics beside the operator's own, every family with help text. */
@EnableKubernetesMockClient
class OperatorMetricsTest {

  static KubernetesClient client;

  @Test
  void metricsIncludeTheJvmAndProcessAndEveryFamilyHasHelpText() {
    Operator.Parts parts = Operator.wire(client, OperatorConfig.defaults(), "test", new InMemorySecretStore(), TenantCleanup.NONE,
        null, null);
    String scrape = parts.registry().scrape();

    assertThat(scrape).contains("jvm_memory_used_bytes", "jvm_gc_", "jvm_threads_live_threads", "process_cpu_usage",
        "process_files_open_files", "process_uptime_seconds", "process_cpu_seconds_total", "system_cpu_cores",
        "tenantry_syncs_in_progress");
    // Names promtool's lint refuses (an abbreviated unit; "_count" on a gauge).
    assertThat(scrape).doesNotContain("process_cpu_time_ns", "system_cpu_count");
    List<String> lines = Arrays.asList(scrape.split("\n"));
    List<String> families = lines.stream().filter(l -> l.startsWith("# TYPE ")).map(l -> l.split(" ")[2]).toList();
    assertThat(families).isNotEmpty().allSatisfy(family -> assertThat(lines)
        .as("help text of " + family).anyMatch(l -> l.startsWith("# HELP " + family + " ")
            && !l.substring(("# HELP " + family + " ").length()).isBlank()));
  }
}
