package io.tenantry.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The agent's cipher warm-up: a round trip through the backup format with a throwaway key of small segments. */
class CipherWarmUpTest {

  @Test
  void encryptsAndDecryptsTheSegmentsItSays() throws Exception {
    CipherWarmUp.Done done = CipherWarmUp.run(1024, 50);

    assertThat(done.bytes()).isEqualTo(50 * 1024);
    assertThat(done.segmentBytes()).isEqualTo(1024);
    assertThat(done.toString()).startsWith("cipher warmed up: 0.0 MiB each way in 1024-byte segments, ");
  }

  @Test
  void startsOnAThreadOfItsOwn() throws Exception {
    CipherWarmUp.Done done = CipherWarmUp.start().get(1, TimeUnit.MINUTES);

    assertThat(done.bytes()).isEqualTo((long) CipherWarmUp.SEGMENTS * CipherWarmUp.SEGMENT_BYTES);
    assertThat(done.toString()).matches("cipher warmed up: 2\\.9 MiB each way in 512-byte segments, \\d+ ms");
  }
}
