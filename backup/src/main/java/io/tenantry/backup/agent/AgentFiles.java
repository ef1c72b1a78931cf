package io.tenantry.backup.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The files the agent shares with the engine's script in the work directory (see PostgresCommands). */
final class AgentFiles {

  private static final Duration POLL = Duration.ofMillis(50);
  private final Path work;

  AgentFiles(Path work) {
    this.work = work;
  }

  Path fifo() {
    return work.resolve("dump");
  }

  void writeAtomically(String name, String content) throws IOException {
    Path temp = work.resolve(name + ".tmp");
    Files.writeString(temp, content, StandardCharsets.UTF_8);
    Files.move(temp, work.resolve(name), StandardCopyOption.ATOMIC_MOVE);
  }

  /** Tells the script to give up waiting for the agent. */
  void abort() {
    try {
      Files.writeString(work.resolve("abort"), "", StandardCharsets.UTF_8);
    } catch (IOException e) {
      // The script's own wait ends it.
    }
  }

  /** Tells the script the agent is done with its server (a drill's, which the script then stops). */
  void done() {
    try {
      Files.writeString(work.resolve("done"), "", StandardCharsets.UTF_8);
    } catch (IOException e) {
      // The script's own wait ends it.
    }
  }

  /** The exit code the script wrote to {@code <tool>.exit}, once written, or empty after {@code timeout}. */
  OptionalInt awaitExit(String tool, Duration timeout) throws InterruptedException {
    Path file = work.resolve(tool + ".exit");
    long deadline = System.nanoTime() + timeout.toNanos();
    do {
      try {
        return OptionalInt.of(Integer.parseInt(Files.readString(file, StandardCharsets.UTF_8).strip()));
      } catch (NoSuchFileException e) {
        Thread.sleep(POLL.toMillis());
      } catch (IOException | NumberFormatException e) {
        return OptionalInt.of(-1);
      }
    } while (System.nanoTime() < deadline);
    return OptionalInt.empty();
  }

  /** The first line the tool wrote to stderr. */
  String error(String tool) {
    try {
      return AgentReport.firstLine(Files.readString(work.resolve(tool + ".err"), StandardCharsets.UTF_8));
    } catch (IOException e) {
      return tool + " wrote no error";
    }
  }

  /**
   * Opens the FIFO for reading once the script has made it and its writer has opened it. Should the
   * script end first ({@code <tool>.exit} written, say pg_dump could not connect), the agent opens
   * the FIFO's other end itself so the open returns, at once at the end of the stream.
   */
  InputStream openFifoForReading(String tool, Duration timeout) throws IOException, InterruptedException {
    awaitFifo(tool, timeout);
    CompletableFuture<InputStream> open = CompletableFuture.supplyAsync(() -> {
      try {
        return Files.newInputStream(fifo());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    return awaitOpen(open, tool, timeout, () -> Files.newOutputStream(fifo()).close());
  }

  /** Opens the FIFO for writing once its reader has; the same escape as for reading. */
  OutputStream openFifoForWriting(String tool, Duration timeout) throws IOException, InterruptedException {
    awaitFifo(tool, timeout);
    CompletableFuture<OutputStream> open = CompletableFuture.supplyAsync(() -> {
      try {
        return Files.newOutputStream(fifo());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    return awaitOpen(open, tool, timeout, () -> Files.newInputStream(fifo()).close());
  }

  private interface Unblock {
    void run() throws IOException;
  }

  private <T> T awaitOpen(CompletableFuture<T> open, String tool, Duration timeout, Unblock unblock)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        return open.get(POLL.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        if (Files.exists(work.resolve(tool + ".exit")) || System.nanoTime() > deadline) {
          unblock.run();
          try {
            return open.get(10, TimeUnit.SECONDS);
          } catch (TimeoutException | ExecutionException stuck) {
            throw new IOException(tool + " never opened " + fifo(), stuck);
          }
        }
      } catch (ExecutionException e) {
        throw new IOException("cannot open " + fifo() + ": " + e.getCause().getMessage(), e.getCause());
      }
    }
  }

  private void awaitFifo(String tool, Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!Files.exists(fifo())) {
      if (Files.exists(work.resolve(tool + ".exit"))) {
        throw new IOException(tool + " ended before it made " + fifo() + ": " + error(tool));
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("the script made no FIFO " + fifo() + " within " + timeout);
      }
      Thread.sleep(POLL.toMillis());
    }
  }
}
