package io.tenantry.backup;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Brings the AES-GCM under a backup's encryption to compiled speed before the stream, in the
 * agent's own short-lived JVM. Tink calls the JDK's cipher once per 1 MiB segment, so the JDK's
 * GCM methods ({@code GCTR.update}, {@code GHASH.update}, {@code CounterMode.crypt}) are invoked
 * too rarely for C2 to compile them early, and until it does they run without the AES and GHASH
 * intrinsics: about 70 MiB/s instead of over 1 GiB/s, for the first 700 to 900 MiB of a stream
 * (JDK 17). The warm-up encrypts and decrypts a few MiB through the same {@link BackupFormat} path
 * with a throwaway key of 512-byte segments, so those methods are invoked thousands of times in
 * well under a second; the key and the bytes are thrown away. The agent starts it on a thread of
 * its own when a command starts, and waits for it before its stream's first segment (measured by
 * tools/bench-backup.sh; see docs/benchmarks.md).
 */
public final class CipherWarmUp {

  static final int SEGMENT_BYTES = 512;
  static final int SEGMENTS = 6000;
  private static final int CHUNK = 256 << 10; // as the agent writes: ReadAheadInputStream's chunks
  private static final String OBJECT_PATH = "warm-up";

  /** What one warm-up did, for the agent's log. */
  public record Done(long bytes, int segmentBytes, Duration took) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT, "cipher warmed up: %.1f MiB each way in %d-byte segments, %d ms",
          bytes / (double) (1 << 20), segmentBytes, took.toMillis());
    }
  }

  private CipherWarmUp() {
  }

  /** Starts {@link #run()} on a daemon thread of its own. */
  public static CompletableFuture<Done> start() {
    CompletableFuture<Done> done = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        done.complete(run());
      } catch (IOException | RuntimeException e) {
        done.completeExceptionally(e);
      }
    }, "cipher-warm-up");
    thread.setDaemon(true);
    thread.start();
    return done;
  }

  /** Encrypts and decrypts {@value #SEGMENTS} segments of {@value #SEGMENT_BYTES} bytes. */
  public static Done run() throws IOException {
    return run(SEGMENT_BYTES, SEGMENTS);
  }

  /**
   * Encrypts about {@code segments} segments of {@code segmentBytes} with a throwaway key, decrypts
   * them and checks they come back.
   *
   * @throws IOException if they do not (the JDK's cipher is broken: no backup should run)
   */
  static Done run(int segmentBytes, int segments) throws IOException {
    long start = System.nanoTime();
    DataKey key = DataKey.withSegments(segmentBytes);
    byte[] plain = new byte[segmentBytes * segments];
    for (int i = 0; i < plain.length; i++) {
      plain[i] = (byte) (i * 31 + (i >>> 11));
    }
    ByteArrayOutputStream object = new ByteArrayOutputStream(plain.length + (plain.length >> 6) + 4096);
    try (OutputStream encrypting = BackupFormat.encrypting(object, key, OBJECT_PATH,
        new BackupHeader("warm-up", "0", Map.of(), 0))) {
      for (int off = 0; off < plain.length; off += CHUNK) {
        encrypting.write(plain, off, Math.min(CHUNK, plain.length - off));
      }
    }
    byte[] back = new byte[plain.length];
    try (InputStream decrypting = BackupFormat.open(new ByteArrayInputStream(object.toByteArray()), key, OBJECT_PATH)
        .dump()) {
      int n = decrypting.readNBytes(back, 0, back.length);
      if (n != plain.length || decrypting.read() != -1 || !Arrays.equals(plain, back)) {
        throw new IOException("the cipher's warm-up did not decrypt to what it encrypted");
      }
    }
    return new Done(plain.length, segmentBytes, Duration.ofNanos(System.nanoTime() - start));
  }
}
