package io.tenantry.deploy.cli;

import java.util.ArrayList;
import java.util.List;

/** Left-aligned columns separated by three spaces, as kubectl prints them. */
final class Table {

  private final List<String[]> rows = new ArrayList<>();

  Table(String... header) {
    rows.add(header);
  }

  Table row(Object... cells) {
    String[] row = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      row[i] = cells[i] == null ? "<none>" : cells[i].toString();
    }
    rows.add(row);
    return this;
  }

  List<String> lines() {
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    List<String> lines = new ArrayList<>();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(row[i]);
        if (i < row.length - 1) {
          line.append(" ".repeat(widths[i] - row[i].length() + 3));
        }
      }
      lines.add(line.toString());
    }
    return lines;
  }
}
