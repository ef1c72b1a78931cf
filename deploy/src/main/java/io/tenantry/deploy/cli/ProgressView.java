package io.tenantry.deploy.cli;

import io.tenantry.deploy.rollout.PoolProgress;
import io.tenantry.deploy.rollout.Rollout;
import io.tenantry.deploy.rollout.RolloutEngine;
import io.tenantry.deploy.rollout.TenantProgress;
import io.tenantry.deploy.rollout.TenantProgress.Step;
import io.tenantry.deploy.rollout.Wave;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

/**
 * A rollout as it goes. On a terminal: a table of the waves around the current one, with a
 * progress bar and the last events, redrawn in place (ANSI cursor moves). Otherwise (a pipe, a CI
 * log): one timestamped line per event, nothing redrawn.
 */
final class ProgressView implements RolloutEngine.Listener {

  private static final int WAVE_ROWS = 8;
  private static final int EVENTS = 3;
  private static final int BAR = 30;
  /** Always with seconds: LocalTime's own toString drops them on a whole minute. */
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT);

  private final Command.Terminal terminal;
  private final Deque<String> events = new ArrayDeque<>();
  private int drawnLines;

  ProgressView(Command.Terminal terminal) {
    this.terminal = terminal;
  }

  @Override
  public void changed(Rollout rollout, String event) {
    String line = TIME.format(LocalTime.now()) + " " + event;
    if (!terminal.live()) {
      terminal.out().println(line);
      return;
    }
    events.addLast(line);
    if (events.size() > EVENTS) {
      events.removeFirst();
    }
    List<String> lines = new ArrayList<>(render(rollout, WAVE_ROWS));
    lines.addAll(events);
    StringBuilder frame = new StringBuilder();
    if (drawnLines > 0) {
      frame.append("\033[").append(drawnLines).append("F\033[J"); // Up to the frame's first line, clear below.
    }
    lines.forEach(l -> frame.append(l).append('\n'));
    terminal.out().print(frame);
    terminal.out().flush();
    drawnLines = lines.size();
  }

  /** The rollout's header, progress bar and waves (at most {@code waveRows} of them, around the current one). */
  static List<String> render(Rollout rollout, int waveRows) {
    List<String> lines = new ArrayList<>();
    lines.add("rollout " + rollout.id() + "   " + rollout.request().app() + " -> " + rollout.request().version() + "   "
        + rollout.request().selection().describe() + "   " + rollout.state());
    long total = rollout.tenants();
    long succeeded = rollout.count(Step.SUCCEEDED);
    long failed = rollout.failures();
    int filled = total == 0 ? BAR : (int) ((succeeded + failed) * BAR / total);
    lines.add("[" + "#".repeat(filled) + "-".repeat(BAR - filled) + "]  " + succeeded + "/" + total + " on "
        + rollout.request().version() + ", " + failed + " failed (" + rollout.request().failureLimits().describe() + ")");
    List<Wave> waves = rollout.waves();
    Wave current = rollout.currentWave();
    int from = current == null ? Math.max(0, waves.size() - waveRows) : Math.max(0, current.index() - 1 - 2);
    from = Math.max(0, Math.min(from, waves.size() - waveRows));
    int to = Math.min(waves.size(), from + waveRows);
    Table table = new Table("WAVE", "CLUSTER", "TENANTS", "WRITTEN", "SUCCEEDED", "FAILED", "STATE");
    for (Wave w : waves.subList(from, to)) {
      table.row(w.index() + "/" + waves.size(), w.cluster(), w.tenants().size(),
          w.tenants().size() - w.count(Step.PENDING), w.count(Step.SUCCEEDED), w.count(Step.FAILED),
          w.done() ? "done" : w.started() ? "rolling" : "pending");
    }
    List<String> rows = table.lines();
    lines.add(rows.get(0));
    if (from > 0) {
      lines.add("  (" + from + " earlier wave(s))");
    }
    lines.addAll(rows.subList(1, rows.size()));
    if (to < waves.size()) {
      lines.add("  (" + (waves.size() - to) + " more wave(s))");
    }
    for (PoolProgress pool : rollout.pools()) {
      lines.add("pool " + pool.cluster() + "/" + pool.pool() + ": " + (pool.updated() ? "follows" : "waits for its cluster"));
    }
    return lines;
  }

  /** One line per failed tenant, with the version it had and why it failed, in wave order. */
  static List<String> failedTenants(Rollout rollout) {
    List<String> lines = new ArrayList<>();
    for (Wave wave : rollout.waves()) {
      for (TenantProgress t : wave.tenants()) {
        if (t.step() == Step.FAILED) {
          lines.add(t.failedLine(wave.cluster()));
        }
      }
    }
    return lines;
  }
}
