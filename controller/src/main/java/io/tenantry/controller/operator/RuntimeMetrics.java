package io.tenantry.controller.operator;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * What is graphed first for a Java service: heap, GC, threads, classes, CPU, open files, uptime
 * (Micrometer's binders). Two of Micrometer's names fail {@code promtool check metrics}, so they
 * take the names Prometheus' own process collector uses.
 */
final class RuntimeMetrics {

  private RuntimeMetrics() {
  }

  static void bindTo(MeterRegistry registry) {
    registry.config()
        // process_cpu_time_ns_total: an abbreviated unit; replaced by process_cpu_seconds_total below.
        .meterFilter(MeterFilter.denyNameStartsWith("process.cpu.time"))
        // system_cpu_count: "_count" is reserved for histograms and summaries.
        .meterFilter(new MeterFilter() {
          @Override
          public Meter.Id map(Meter.Id id) {
            return id.getName().equals("system.cpu.count") ? id.withName("system.cpu.cores") : id;
          }
        });
    List.of(new JvmMemoryMetrics(), new JvmGcMetrics(), new JvmThreadMetrics(), new ClassLoaderMetrics(),
        new ProcessorMetrics(), new FileDescriptorMetrics(), new UptimeMetrics()).forEach(binder -> binder.bindTo(registry));
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      FunctionCounter.builder("process.cpu", os, bean -> bean.getProcessCpuTime() / 1e9).baseUnit("seconds")
          .description("CPU time used by the operator's process").register(registry);
    }
  }
}
