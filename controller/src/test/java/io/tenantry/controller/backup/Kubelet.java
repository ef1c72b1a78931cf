package io.tenantry.controller.backup;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.testsupport.RealPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Plays the kubelet for backup and drill pods, which kwok leaves Running
 * (tools/kwok-pod-stages.yaml): runs the exact commands of the pod's containers on this machine,
 * each a process of its own, with the pod's environment (Secret references resolved), its emptyDir
 * and Secret volumes as local directories, and the variables in {@code overrides} (the database's
 * host rewritten to loopback): the engine's script under {@code sh} as a user that is not root,
 * with the machine's PostgreSQL client and the server's binaries (a drill starts its own server),
 * the agent on this machine's JDK. Then it writes the pod's terminated status, the agent's
 * termination message included, as a kubelet would.
 */
final class Kubelet {

  private static final String TERMINATION_LOG = "/dev/termination-log";

  /** How each container ended. */
  record Ended(String container, int exitCode, String message, String output) {
  }

  private Kubelet() {
  }

  /** The Running pod of Job {@code job}, once there is one. */
  static Pod awaitRunningPod(KubernetesClient client, String namespace, String job) {
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).until(() -> client.pods().inNamespace(namespace)
        .withLabel("job-name", job).list().getItems().stream()
        .anyMatch(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase())));
    return client.pods().inNamespace(namespace).withLabel("job-name", job).list().getItems().stream()
        .filter(p -> "Running".equals(p.getStatus().getPhase())).findFirst().orElseThrow();
  }

  /** Runs the pod's containers, then writes their terminated status. */
  static List<Ended> run(KubernetesClient client, Pod pod, Map<String, String> overrides) throws Exception {
    List<Ended> ended = execute(client, pod, overrides);
    terminate(client, pod, ended);
    return ended;
  }

  /** Runs the pod's containers to their end, and writes nothing: the pod still looks Running. */
  static List<Ended> execute(KubernetesClient client, Pod pod, Map<String, String> overrides) throws Exception {
    String namespace = pod.getMetadata().getNamespace();
    Path root = Files.createTempDirectory("kubelet-" + pod.getMetadata().getName() + "-");
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
    Map<String, Path> volumes = new HashMap<>();
    for (Volume volume : pod.getSpec().getVolumes()) {
      Path dir = Files.createDirectories(root.resolve(volume.getName()));
      if (volume.getEmptyDir() != null) {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx")); // the engine's user writes here
      }
      if (volume.getSecret() != null) {
        Secret secret = client.secrets().inNamespace(namespace).withName(volume.getSecret().getSecretName()).get();
        for (Map.Entry<String, String> entry : secret.getData().entrySet()) {
          Files.write(dir.resolve(entry.getKey()), Base64.getDecoder().decode(entry.getValue()));
        }
      }
      volumes.put(volume.getName(), dir);
    }
    List<CompletableFuture<Ended>> running = new ArrayList<>();
    for (Container container : pod.getSpec().getContainers()) {
      Map<String, String> rewrites = new HashMap<>();
      for (VolumeMount mount : container.getVolumeMounts()) {
        rewrites.put(mount.getMountPath(), volumes.get(mount.getName()).toString());
      }
      Path terminationLog = root.resolve(container.getName() + ".termination-log");
      rewrites.put(TERMINATION_LOG, terminationLog.toString());
      Map<String, String> env = env(client, namespace, container, rewrites);
      env.putAll(overrides);
      if (!container.getName().equals(BackupJob.AGENT)) {
        // The database's image: its tools on the PATH (the server's too, for a drill), run as a user that is not root.
        env.put("PATH", RealPostgres.serverBinaries() + ":" + System.getenv("PATH"));
      }
      List<String> command = new ArrayList<>();
      container.getCommand().forEach(part -> command.add(rewrite(part, rewrites)));
      container.getArgs().forEach(part -> command.add(rewrite(part, rewrites)));
      running.add(CompletableFuture.supplyAsync(() -> start(container.getName(), command, env, terminationLog)));
    }
    List<Ended> ended = new ArrayList<>();
    for (CompletableFuture<Ended> container : running) {
      ended.add(container.get(5, TimeUnit.MINUTES));
    }
    return ended;
  }

  /**
   * Runs the container's command as a process of its own. The operator's image is this machine's
   * JDK with the test's class path: {@code java} is this JVM's, {@code @/app/jib-classpath-file}
   * (Jib's class path file) the test's class path.
   */
  private static Ended start(String name, List<String> command, Map<String, String> env, Path terminationLog) {
    try {
      if (command.contains(BackupJob.AGENT_MAIN)) {
        command = command.stream().map(part -> part.equals("java")
            ? Path.of(System.getProperty("java.home"), "bin", "java").toString()
            : part.equals("@/app/jib-classpath-file") ? System.getProperty("java.class.path") : part).toList();
      } else {
        command = RealPostgres.asServerUser(command);
      }
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
      builder.environment().putAll(env);
      Process process = builder.start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int exit = process.waitFor();
      return new Ended(name, exit, Files.exists(terminationLog) ? Files.readString(terminationLog) : "", output);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Writes the pod's terminated status: Succeeded when every container exited 0, else Failed. */
  static void terminate(KubernetesClient client, Pod pod, List<Ended> ended) {
    String now = Instant.now().toString();
    boolean succeeded = ended.stream().allMatch(e -> e.exitCode() == 0);
    for (int attempt = 0; ; attempt++) {
      Pod current = client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).get();
      List<ContainerStatus> statuses = new ArrayList<>();
      for (Ended e : ended) {
        statuses.add(new ContainerStatusBuilder().withName(e.container()).withReady(false).withRestartCount(0)
            .withImage(current.getSpec().getContainers().stream().filter(c -> c.getName().equals(e.container()))
                .findFirst().orElseThrow().getImage())
            .withNewState().withNewTerminated().withExitCode(e.exitCode()).withReason(e.exitCode() == 0 ? "Completed" : "Error")
            .withMessage(e.message().isEmpty() ? null : e.message()).withStartedAt(now).withFinishedAt(now)
            .endTerminated().endState().build());
      }
      current.getStatus().setPhase(succeeded ? "Succeeded" : "Failed");
      current.getStatus().setContainerStatuses(statuses);
      current.getStatus().getConditions().forEach(c -> {
        if ("Ready".equals(c.getType()) || "ContainersReady".equals(c.getType())) {
          c.setStatus("False");
        }
      });
      try {
        client.pods().resource(current).updateStatus();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt > 5) {
          throw e;
        }
      }
    }
  }

  private static Map<String, String> env(KubernetesClient client, String namespace, Container container,
      Map<String, String> rewrites) {
    Map<String, String> env = new HashMap<>();
    for (EnvVar var : container.getEnv()) {
      if (var.getValueFrom() != null && var.getValueFrom().getSecretKeyRef() != null) {
        Secret secret = client.secrets().inNamespace(namespace).withName(var.getValueFrom().getSecretKeyRef().getName()).get();
        env.put(var.getName(), new String(Base64.getDecoder().decode(secret.getData().get(var.getValueFrom().getSecretKeyRef()
            .getKey())), StandardCharsets.UTF_8));
      } else {
        env.put(var.getName(), var.getValue() == null ? "" : rewrite(var.getValue(), rewrites)); // "" is sent as no value
      }
    }
    return env;
  }

  private static String rewrite(String value, Map<String, String> rewrites) {
    String result = value;
    for (Map.Entry<String, String> rewrite : rewrites.entrySet()) {
      result = result.replace(rewrite.getKey(), rewrite.getValue());
    }
    return result;
  }
}
