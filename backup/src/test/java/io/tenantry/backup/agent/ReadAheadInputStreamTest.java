package io.tenantry.backup.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The agent's read-ahead of the dump FIFO: the same bytes in order, the source's failure, and close. */
class ReadAheadInputStreamTest {

  private static byte[] bytes(int n) {
    byte[] bytes = new byte[n];
    new Random(n).nextBytes(bytes);
    return bytes;
  }

  @Test
  void givesTheSourcesBytesInOrderHoweverTheyAreRead() throws IOException {
    byte[] source = bytes(10_000);
    try (InputStream in = new ReadAheadInputStream(new ByteArrayInputStream(source), 64, 3)) {
      ByteArrayOutputStream read = new ByteArrayOutputStream();
      read.write(in.read());
      byte[] buffer = new byte[100];
      read.write(buffer, 0, in.read(buffer, 0, 37));
      read.write(in.readNBytes(1000));
      in.transferTo(read);
      assertThat(read.toByteArray()).isEqualTo(source);
      assertThat(in.read()).isEqualTo(-1);
      assertThat(in.read(buffer)).isEqualTo(-1);
    }
  }

  @Test
  void aSourceOfExactlyWholeChunksAndAnEmptyOneEnd() throws IOException {
    byte[] source = bytes(64 * 5);
    try (InputStream in = new ReadAheadInputStream(new ByteArrayInputStream(source), 64, 2)) {
      assertThat(in.readAllBytes()).isEqualTo(source);
    }
    try (InputStream in = new ReadAheadInputStream(InputStream.nullInputStream(), 64, 2)) {
      assertThat(in.read()).isEqualTo(-1);
    }
  }

  @Test
  void theSourcesFailureIsThrownByTheReadThatReachesIt() throws IOException {
    byte[] before = bytes(1000);
    InputStream failing = new SequenceInputStream(new ByteArrayInputStream(before), new InputStream() {
      @Override
      public int read() throws IOException {
        throw new IOException("pipe broken");
      }
    });
    try (InputStream in = new ReadAheadInputStream(failing, 64, 4)) {
      // The whole chunks before the failure (15 of 64 bytes); the failed read's part is lost.
      assertThat(in.readNBytes(960)).isEqualTo(Arrays.copyOf(before, 960));
      assertThatThrownBy(() -> in.transferTo(OutputStream.nullOutputStream())).isInstanceOf(IOException.class)
          .hasMessage("pipe broken");
    }
  }

  @Test
  void closeStopsTheReaderAndClosesTheSource() throws Exception {
    AtomicBoolean sourceClosed = new AtomicBoolean();
    CountDownLatch readAhead = new CountDownLatch(1);
    InputStream endless = new InputStream() {
      @Override
      public int read() {
        return 7;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        Arrays.fill(b, off, off + len, (byte) 7);
        readAhead.countDown();
        return len;
      }

      @Override
      public void close() {
        sourceClosed.set(true);
      }
    };
    ReadAheadInputStream in = new ReadAheadInputStream(endless, 64, 2);
    assertThat(readAhead.await(10, TimeUnit.SECONDS)).isTrue();
    in.close();

    assertThat(sourceClosed).isTrue();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("read-ahead"))
        && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("read-ahead"));
  }
}
