package io.tenantry.secretstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/** One {@link SecretsCli#run} with its exit status and both output streams captured. */
record CliRun(int status, String out, String err) {

  static CliRun of(List<String> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status;
    try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
         PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      status = SecretsCli.run(args.toArray(String[]::new), outStream, errStream);
    }
    return new CliRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Fails unless the run exited with {@code expected}; the message shows what it printed. */
  CliRun exits(int expected) {
    assertThat(status).as("exit status; out:%n%s%nerr:%n%s", out, err).isEqualTo(expected);
    return this;
  }

  /** Fails if either stream holds one of the values, as given or in base64 (as a Secret's data holds it). */
  CliRun showsNone(String... values) {
    for (String value : values) {
      String base64 = Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
      assertThat(out + err).as("output of the run").doesNotContain(value).doesNotContain(base64);
    }
    return this;
  }
}
