package io.tenantry.backup;

import io.tenantry.backup.agent.AgentReport;
import io.tenantry.backup.agent.BackupAgent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the two containers of a backup or restore Job on this machine, as a kubelet would: the
 * engine's script under {@code sh} with the machine's PostgreSQL client tools, and the agent (in
 * this JVM), sharing a work directory. Tests point libpq's variables at a local server.
 */
public final class JobContainers {

  /** What both containers ended with. */
  public record Ended(int scriptExit, String scriptOutput, int agentExit, AgentReport report) {
  }

  private JobContainers() {
  }

  /**
   * @param script the engine container's script ({@code sh -c})
   * @param env both containers' environment; {@code WORK} is set to {@code work}
   * @param agentArgs the agent's arguments; {@code --work} and {@code --report} are added
   */
  public static Ended run(Path work, String script, Map<String, String> env, List<String> agentArgs)
      throws IOException, InterruptedException {
    Files.createDirectories(work);
    Map<String, String> withWork = new java.util.HashMap<>(env);
    withWork.put("WORK", work.toString());
    ProcessBuilder builder = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true);
    builder.environment().putAll(withWork);
    Process process = builder.start();
    CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
      try {
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        return e.toString();
      }
    });
    Path report = work.resolve("termination-log");
    List<String> args = new ArrayList<>(agentArgs);
    args.addAll(List.of("--work", work.toString(), "--report", report.toString()));
    int agentExit = BackupAgent.run(args.toArray(String[]::new), withWork);
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("the script did not end within 5 minutes after the agent");
    }
    return new Ended(process.exitValue(), output.join(), agentExit,
        AgentReport.fromJson(Files.readString(report, StandardCharsets.UTF_8)));
  }
}
