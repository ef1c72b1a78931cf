package io.tenantry.backup;

import io.tenantry.backup.agent.AgentReport;
import io.tenantry.backup.agent.BackupAgent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the two containers of a backup or restore Job on this machine, as a kubelet would: the
 * engine's script under {@code sh} with the machine's PostgreSQL client tools, and the agent (in
 * this JVM, or as a JVM of its own as in a Job), sharing a work directory. Tests point libpq's
 * variables at a local server.
 */
public final class JobContainers {

  /** What both containers ended with; {@code agentOutput} is empty when the agent ran in this JVM. */
  public record Ended(int scriptExit, String scriptOutput, int agentExit, String agentOutput, AgentReport report) {
  }

  private JobContainers() {
  }

  /**
   * Runs the agent in this JVM.
   *
   * @param script the engine container's script ({@code sh -c})
   * @param env both containers' environment; {@code WORK} is set to {@code work}
   * @param agentArgs the agent's arguments; {@code --work} and {@code --report} are added
   */
  public static Ended run(Path work, String script, Map<String, String> env, List<String> agentArgs)
      throws IOException, InterruptedException {
    return run(work, script, env, agentArgs, null);
  }

  /**
   * Runs the agent as a JVM of its own, as the Job's agent container does: this JVM's {@code java}
   * with {@code jvmOptions}, this JVM's class path and the agent's main class.
   */
  public static Ended runInOwnJvm(Path work, String script, Map<String, String> env, List<String> agentArgs,
      List<String> jvmOptions) throws IOException, InterruptedException {
    return run(work, script, env, agentArgs, List.copyOf(jvmOptions));
  }

  private static Ended run(Path work, String script, Map<String, String> env, List<String> agentArgs,
      List<String> jvmOptions) throws IOException, InterruptedException {
    Files.createDirectories(work);
    Map<String, String> withWork = new HashMap<>(env);
    withWork.put("WORK", work.toString());
    ProcessBuilder builder = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true);
    builder.environment().putAll(withWork);
    Process process = builder.start();
    CompletableFuture<String> output = readAll(process);
    Path report = work.resolve("termination-log");
    List<String> args = new ArrayList<>(agentArgs);
    args.addAll(List.of("--work", work.toString(), "--report", report.toString()));
    int agentExit;
    String agentOutput = "";
    if (jvmOptions == null) {
      agentExit = BackupAgent.run(args.toArray(String[]::new), withWork);
    } else {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(jvmOptions);
      command.addAll(List.of("-cp", System.getProperty("java.class.path"), BackupAgent.class.getName()));
      command.addAll(args);
      ProcessBuilder agentBuilder = new ProcessBuilder(command).redirectErrorStream(true);
      agentBuilder.environment().putAll(withWork);
      Process agent = agentBuilder.start();
      CompletableFuture<String> agentOut = readAll(agent);
      agentExit = agent.waitFor();
      agentOutput = agentOut.join();
    }
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("the script did not end within 5 minutes after the agent");
    }
    return new Ended(process.exitValue(), output.join(), agentExit, agentOutput,
        AgentReport.fromJson(Files.readString(report, StandardCharsets.UTF_8)));
  }

  /** Reads the process's output on a thread of its own (not the common pool: one thread on two cores). */
  private static CompletableFuture<String> readAll(Process process) {
    CompletableFuture<String> output = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try {
        output.complete(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        output.complete(e.toString());
      }
    }, "job-container-output");
    reader.setDaemon(true);
    reader.start();
    return output;
  }
}
