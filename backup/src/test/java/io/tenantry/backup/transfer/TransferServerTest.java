package io.tenantry.backup.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.crypto.tink.Aead;
import io.tenantry.backup.store.LocalBackupStore;
import io.tenantry.backup.transfer.TransferTokens.Access;
import io.tenantry.secretstore.LocalKeyset;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The transfer listener comes back on its port after a restart, as an operator replica does. */
class TransferServerTest {

  @Test
  void aRestartedServerServesOnTheSamePort(@TempDir Path dir) throws Exception {
    Aead key = LocalKeyset.loadOrCreate(dir.resolve("keyset.json"));
    TransferTokens tokens = new TransferTokens(key, Clock.systemUTC());
    LocalBackupStore store = new LocalBackupStore(Files.createDirectories(dir.resolve("store")));
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    for (String round : new String[] {"a", "b"}) {
      try (TransferServer server = new TransferServer(new InetSocketAddress(port), new TransferHandler(tokens, store), 2)) {
        server.start();
        for (int i = 0; i < 10; i++) {
          String token = tokens.issue(Access.UPLOAD, "backups/c/t-u/db/" + round + i + ".dump.enc", Duration.ofMinutes(1));
          HttpURLConnection put = (HttpURLConnection) URI.create("http://127.0.0.1:" + port
              + TransferHandler.PATH + token).toURL().openConnection();
          put.setRequestProperty("Connection", "close");
          put.setRequestMethod("PUT");
          put.setDoOutput(true);
          put.setChunkedStreamingMode(1 << 20);
          try (OutputStream out = put.getOutputStream()) {
            out.write(new byte[100_000]);
          }
          assertThat(put.getResponseCode()).as(round + i).isEqualTo(201);
        }
      }
    }
  }
}
