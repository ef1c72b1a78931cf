package io.tenantry.controller.operator;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The kube-score findings we accept on a tenant's objects, each with the reason it is a deliberate
 * choice: {@value #FILE}, one entry per line, {@code <check id> <kinds, comma-separated>: <why>}.
 */
final class KubeScoreAllowList {

  static final String FILE = "controller/src/test/resources/kube-score-allow.txt";

  /** One critical or warning finding of kube-score on one object. */
  record Finding(String check, String kind, String object, String grade, String detail) {
    @Override
    public String toString() {
      return grade + " " + check + " on " + kind + " " + object + (detail.isEmpty() ? "" : " (" + detail + ")");
    }
  }

  record Entry(String check, Set<String> kinds, String reason) {
    boolean allows(Finding finding) {
      return check.equals(finding.check()) && kinds.contains(finding.kind());
    }
  }

  private final List<Entry> entries;

  private KubeScoreAllowList(List<Entry> entries) {
    this.entries = entries;
  }

  static KubeScoreAllowList load() {
    try (InputStream in = KubeScoreAllowList.class.getResourceAsStream("/kube-score-allow.txt")) {
      if (in == null) {
        throw new IllegalStateException(FILE + " is not on the test classpath");
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static KubeScoreAllowList parse(String text) {
    List<Entry> entries = new ArrayList<>();
    String[] lines = text.split("\n");
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int colon = line.indexOf(':');
      String[] head = colon < 0 ? new String[0] : line.substring(0, colon).strip().split("\\s+");
      String reason = colon < 0 ? "" : line.substring(colon + 1).strip();
      if (head.length != 2 || reason.isEmpty()) {
        throw new IllegalArgumentException(FILE + " line " + (i + 1) + ": expected '<check id> <kinds>: <why>', got '" + line + "'");
      }
      entries.add(new Entry(head[0], Set.of(head[1].split(",")), reason));
    }
    return new KubeScoreAllowList(entries);
  }

  /** Findings no entry allows. */
  List<Finding> unexplained(List<Finding> findings) {
    return findings.stream().filter(f -> entries.stream().noneMatch(e -> e.allows(f))).toList();
  }

  /** Entries that allow none of {@code findings}: fixed since, so they go. */
  List<Entry> unused(List<Finding> findings) {
    return entries.stream().filter(e -> findings.stream().noneMatch(e::allows)).toList();
  }

  /** The allow-list with how many findings each entry accepted, for the test's output. */
  String report(List<Finding> findings) {
    StringBuilder out = new StringBuilder("kube-score allow-list (" + FILE + "):\n");
    for (Entry entry : entries) {
      long count = findings.stream().filter(entry::allows).count();
      out.append("  ").append(entry.check()).append(' ').append(String.join(",", entry.kinds().stream().sorted().toList()))
          .append(" [").append(count).append(" finding").append(count == 1 ? "" : "s").append("]: ").append(entry.reason()).append('\n');
    }
    return out.toString();
  }
}
