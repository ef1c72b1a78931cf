package io.tenantry.controller.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class QueueMetricsTest {

  private static final Pattern TYPE_LINE = Pattern.compile("^# TYPE (\\S+) (\\S+)$", Pattern.MULTILINE);

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final ManualTicker ticker = new ManualTicker();
  private final RateLimitingQueue<String> queue = new RateLimitingQueue<>("tenants",
      new ItemExponentialFailureRateLimiter<>(), registry, ticker);

  @AfterEach
  void stop() {
    queue.shutDown();
  }

  @Test
  void scrapeShowsClientGoNamesAndTypes() {
    Map<String, String> families = new TreeMap<>();
    Matcher type = TYPE_LINE.matcher(registry.scrape());
    while (type.find()) {
      families.put(type.group(1), type.group(2));
    }

    assertThat(families).containsOnly(
        entry("workqueue_depth", "gauge"),
        entry("workqueue_adds_total", "counter"),
        entry("workqueue_queue_duration_seconds", "histogram"),
        entry("workqueue_work_duration_seconds", "histogram"),
        entry("workqueue_unfinished_work_seconds", "gauge"),
        entry("workqueue_longest_running_processor_seconds", "gauge"),
        entry("workqueue_retries_total", "counter"),
        // Micrometer publishes every timer's maximum next to it; it cannot be turned off.
        entry("workqueue_queue_duration_seconds_max", "gauge"),
        entry("workqueue_work_duration_seconds_max", "gauge"));
  }

  @Test
  void valuesFollowAddsGetsAndDones() throws Exception {
    queue.add("a");
    queue.add("b");
    queue.add("a");
    assertThat(value("workqueue_adds_total")).isEqualTo(2);
    assertThat(value("workqueue_depth")).isEqualTo(2);

    ticker.advance(Duration.ofSeconds(3));
    assertThat(queue.get()).isEqualTo("a");
    assertThat(value("workqueue_depth")).isEqualTo(1);
    assertThat(value("workqueue_queue_duration_seconds_count")).isEqualTo(1);
    assertThat(value("workqueue_queue_duration_seconds_sum")).isEqualTo(3.0);
    assertThat(value("workqueue_queue_duration_seconds_bucket", "le=\"1.0\"")).isZero();
    assertThat(value("workqueue_queue_duration_seconds_bucket", "le=\"10.0\"")).isEqualTo(1);

    ticker.advance(Duration.ofSeconds(2));
    assertThat(value("workqueue_unfinished_work_seconds")).isEqualTo(2.0);
    assertThat(value("workqueue_longest_running_processor_seconds")).isEqualTo(2.0);

    assertThat(queue.get()).isEqualTo("b");
    assertThat(value("workqueue_queue_duration_seconds_count")).isEqualTo(2);
    assertThat(value("workqueue_queue_duration_seconds_sum")).isEqualTo(8.0);
    ticker.advance(Duration.ofSeconds(1));
    assertThat(value("workqueue_unfinished_work_seconds")).as("3s + 1s in flight").isEqualTo(4.0);
    assertThat(value("workqueue_longest_running_processor_seconds")).isEqualTo(3.0);

    queue.done("a");
    assertThat(value("workqueue_work_duration_seconds_count")).isEqualTo(1);
    assertThat(value("workqueue_work_duration_seconds_sum")).isEqualTo(3.0);
    assertThat(value("workqueue_unfinished_work_seconds")).isEqualTo(1.0);
    assertThat(value("workqueue_longest_running_processor_seconds")).isEqualTo(1.0);

    queue.add("b"); // while processing: dirty, counted in depth, not queued
    assertThat(value("workqueue_adds_total")).isEqualTo(3);
    assertThat(value("workqueue_depth")).isEqualTo(1);
    assertThat(value("workqueue_retries_total")).isZero();

    queue.addRateLimited("a");
    queue.addRateLimited("a");
    queue.addAfter("c", Duration.ofSeconds(1));
    assertThat(value("workqueue_retries_total")).as("only addRateLimited counts").isEqualTo(2);
  }

  /** The value of {@code series} for this queue, with {@code extraLabels} after its name label. */
  private double value(String series, String... extraLabels) {
    String labels = "name=\"tenants\"" + (extraLabels.length == 0 ? "" : "," + String.join(",", extraLabels));
    String prefix = series + "{" + labels + "} ";
    return registry.scrape().lines()
        .filter(line -> line.startsWith(prefix))
        .mapToDouble(line -> Double.parseDouble(line.substring(prefix.length())))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + prefix + " in the scrape"));
  }
}
