package io.tenantry.controller.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Prometheus text-format scrape, read as a user of {@code /metrics} reads it: sample names, their
 * labels and values. Public for the integration tests that scrape a running operator.
 */
public final class Scrape {

  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** One sample line. */
  public record Sample(String name, Map<String, String> labels, double value) {
  }

  private final List<Sample> samples = new ArrayList<>();

  public Scrape(String text) {
    for (String line : text.split("\n")) {
      Matcher sample = SAMPLE.matcher(line);
      if (line.startsWith("#") || !sample.find()) {
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>();
      if (sample.group(2) != null) {
        Matcher label = LABEL.matcher(sample.group(2));
        while (label.find()) {
          labels.put(label.group(1), label.group(2));
        }
      }
      samples.add(new Sample(sample.group(1), labels, Double.parseDouble(sample.group(3))));
    }
  }

  /** Every sample name (a histogram's {@code _bucket}, {@code _count} and {@code _sum} each). */
  public Set<String> names() {
    Set<String> names = new LinkedHashSet<>();
    samples.forEach(s -> names.add(s.name()));
    return names;
  }

  /** The samples of {@code name} whose labels include {@code labels} (name, value, name, value, ...). */
  public List<Sample> samples(String name, String... labels) {
    return samples.stream().filter(s -> s.name().equals(name) && has(s, labels)).toList();
  }

  /** The one sample of {@code name} with exactly {@code labels}; fails when there is none. */
  public double value(String name, String... labels) {
    List<Sample> found = samples.stream().filter(s -> s.name().equals(name) && has(s, labels) && s.labels().size() == labels.length / 2)
        .toList();
    if (found.size() != 1) {
      throw new AssertionError("expected one sample " + name + " " + List.of(labels) + ", found " + found + " among "
          + samples(name));
    }
    return found.get(0).value();
  }

  /** The sum of the samples of {@code name} whose labels include {@code labels}. */
  public double sum(String name, String... labels) {
    return samples(name, labels).stream().mapToDouble(Sample::value).sum();
  }

  private static boolean has(Sample sample, String... labels) {
    for (int i = 0; i + 1 < labels.length; i += 2) {
      if (!labels[i + 1].equals(sample.labels().get(labels[i]))) {
        return false;
      }
    }
    return true;
  }
}
