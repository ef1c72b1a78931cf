package io.tenantry.backup.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.crypto.tink.Aead;
import com.sun.net.httpserver.HttpServer;
import io.tenantry.backup.store.BackupStore;
import io.tenantry.backup.store.Crc32cs;
import io.tenantry.backup.store.StoredObject;
import io.tenantry.backup.transfer.TransferTokens.Access;
import io.tenantry.secretstore.LocalKeyset;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transfer endpoint over real HTTP, run against each store: an upload token creates its one
 * object once and does nothing else; a download token reads its one object and does nothing else;
 * an altered, foreign or expired token does nothing; an upload cut short stores nothing.
 */
abstract class TransferHandlerContract {

  static final String PATH = "backups/c/t-0f3a/db/db-20250101-000000-abcdef.dump.enc";
  private static final Duration TTL = Duration.ofMinutes(10);

  /** A new, empty store for each test. */
  protected abstract BackupStore newStore() throws Exception;

  /** A store that cannot be reached. */
  protected abstract BackupStore unavailableStore() throws Exception;

  @TempDir
  Path temp;

  protected BackupStore store;
  private Aead key;
  private TransferTokens tokens;
  private Endpoint endpoint;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeEach
  void startEndpoint() throws Exception {
    store = newStore();
    key = LocalKeyset.loadOrCreate(temp.resolve("keyset.json"));
    tokens = new TransferTokens(key, Clock.systemUTC());
    endpoint = new Endpoint(new TransferHandler(tokens, store));
  }

  @AfterEach
  void stopEndpoint() {
    if (endpoint != null) {
      endpoint.close();
    }
  }

  @Test
  void anUploadTokenCreatesItsObjectOnce() throws Exception {
    String upload = tokens.issue(Access.UPLOAD, PATH, TTL);
    byte[] bytes = randomBytes(50_000, 1);

    HttpResponse<String> created = endpoint.put(upload, bytes);

    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(created.body()).isEqualTo("{\"size\":50000,\"crc32c\":\"" + crc32c(bytes) + "\"}");
    assertThat(store.read(PATH)).isEqualTo(bytes);

    HttpResponse<String> again = endpoint.put(upload, randomBytes(40_000, 2));

    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(store.read(PATH)).isEqualTo(bytes);
    assertThat(store.list("backups/")).hasSize(1);
  }

  @Test
  void anUploadTokenAlsoPutsItsAgentsReportBesideTheObjectOnceAndSmall() throws Exception {
    String upload = tokens.issue(Access.UPLOAD, PATH, TTL);
    String reportPath = PATH.replace(".dump.enc", ".report");
    byte[] report = "{\"outcome\":\"dumpFailed\"}".getBytes(StandardCharsets.UTF_8);

    assertThat(endpoint.put(upload + TransferHandler.REPORT, report).statusCode()).isEqualTo(201);
    assertThat(store.read(reportPath)).isEqualTo(report);
    assertThat(endpoint.put(upload + TransferHandler.REPORT, report).statusCode()).isEqualTo(409);
    assertThat(store.stat(PATH)).as("the object is still to come").isEmpty();

    String other = tokens.issue(Access.UPLOAD, PATH.replace("abcdef", "fedcba"), TTL);
    assertThat(endpoint.put(other + TransferHandler.REPORT, randomBytes(TransferHandler.MAX_REPORT_BYTES + 1, 9))
        .statusCode()).as("a report larger than a report").isEqualTo(400);
    assertThat(store.list("backups/")).extracting(StoredObject::path).containsExactly(reportPath);
    String download = tokens.issue(Access.DOWNLOAD, PATH, TTL);
    assertThat(endpoint.get(download + TransferHandler.REPORT).statusCode()).as("reports are the operator's to read")
        .isIn(403, 404);
  }

  @Test
  void anUploadTokenCannotReadListOrDelete() throws Exception {
    String upload = tokens.issue(Access.UPLOAD, PATH, TTL);
    byte[] bytes = randomBytes(20_000, 3);
    assertThat(endpoint.put(upload, bytes).statusCode()).isEqualTo(201);

    HttpResponse<byte[]> read = endpoint.get(upload);
    assertThat(read.statusCode()).isEqualTo(403);
    assertThat(new String(read.body(), StandardCharsets.UTF_8)).isEqualTo("this token grants upload only");

    assertThat(endpoint.get("").statusCode()).as("a listing").isEqualTo(403);
    assertThat(endpoint.send(HttpRequest.newBuilder(endpoint.uri("?prefix=backups/")).GET()).statusCode())
        .as("a listing with a prefix").isEqualTo(403);

    HttpResponse<byte[]> delete = endpoint.send(HttpRequest.newBuilder(endpoint.uri(upload)).DELETE());
    assertThat(delete.statusCode()).isEqualTo(405);
    assertThat(delete.headers().firstValue("Allow")).hasValue("GET, PUT");
    HttpResponse<byte[]> post = endpoint.send(HttpRequest.newBuilder(endpoint.uri(upload))
        .POST(BodyPublishers.ofByteArray(new byte[] {1})));
    assertThat(post.statusCode()).isEqualTo(405);

    assertThat(store.read(PATH)).isEqualTo(bytes);
  }

  @Test
  void aDownloadTokenReadsItsObjectAndCannotWrite() throws Exception {
    byte[] bytes = randomBytes(30_000, 4);
    store.create(PATH, new java.io.ByteArrayInputStream(bytes));
    String download = tokens.issue(Access.DOWNLOAD, PATH, TTL);

    HttpResponse<byte[]> read = endpoint.get(download);

    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(read.headers().firstValue("Content-Type")).hasValue("application/octet-stream");
    assertThat(read.body()).isEqualTo(bytes);

    HttpResponse<String> write = endpoint.put(download, randomBytes(1_000, 5));
    assertThat(write.statusCode()).isEqualTo(403);
    assertThat(write.body()).isEqualTo("this token grants download only");
    HttpResponse<byte[]> delete = endpoint.send(HttpRequest.newBuilder(endpoint.uri(download)).DELETE());
    assertThat(delete.statusCode()).isEqualTo(405);
    assertThat(store.read(PATH)).isEqualTo(bytes);
  }

  @Test
  void aRestoreTokenReportsOnceAtItsOwnPathAndAPlainDownloadTokenNowhere() throws Exception {
    store.create(PATH, new java.io.ByteArrayInputStream(randomBytes(1_000, 10)));
    String reportPath = "backups/c/t-0f3a/db/restores/drill-db-20261126-020000-abcdef.report";
    String restore = tokens.issue(Access.DOWNLOAD, PATH, reportPath, TTL);
    byte[] report = "{\"outcome\":\"restored\"}".getBytes(StandardCharsets.UTF_8);

    assertThat(endpoint.get(restore).statusCode()).isEqualTo(200);
    assertThat(endpoint.put(restore + TransferHandler.REPORT, report).statusCode()).isEqualTo(201);
    assertThat(store.read(reportPath)).isEqualTo(report);
    assertThat(endpoint.put(restore + TransferHandler.REPORT, report).statusCode()).as("once").isEqualTo(409);
    assertThat(endpoint.put(restore, report).statusCode()).as("the object itself").isEqualTo(403);

    HttpResponse<String> plain = endpoint.put(tokens.issue(Access.DOWNLOAD, PATH, TTL) + TransferHandler.REPORT, report);
    assertThat(plain.statusCode()).isEqualTo(403);
    assertThat(plain.body()).isEqualTo("this token grants no report");
    assertThat(store.list("backups/")).extracting(StoredObject::path).containsExactly(PATH, reportPath);
  }

  @Test
  void aDownloadTokenForAMissingObjectIsNotFound() throws Exception {
    String download = tokens.issue(Access.DOWNLOAD, "backups/c/t-0f3a/db/never-written.dump.enc", TTL);

    assertThat(endpoint.get(download).statusCode()).isEqualTo(404);
  }

  @Test
  void aLargeObjectGoesUpAndComesBackWhole() throws Exception {
    // More than two of the Cloud Storage store's 8 MiB upload chunks.
    byte[] bytes = randomBytes(20 * (1 << 20) + 7, 6);

    HttpResponse<String> created = endpoint.put(tokens.issue(Access.UPLOAD, PATH, TTL), bytes);

    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(store.stat(PATH).orElseThrow().crc32c()).isEqualTo(crc32c(bytes));
    HttpResponse<byte[]> read = endpoint.get(tokens.issue(Access.DOWNLOAD, PATH, TTL));
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(read.body()).isEqualTo(bytes);
  }

  @Test
  void anAlteredTokenIsRefused() throws Exception {
    String upload = tokens.issue(Access.UPLOAD, PATH, TTL);
    byte[] bytes = randomBytes(1_000, 7);
    for (int position : new int[] {0, upload.length() / 2, upload.length() - 2}) {
      HttpResponse<String> response = endpoint.put(changeOneCharacter(upload, position), bytes);
      assertThat(response.statusCode()).as("character %d changed", position).isEqualTo(403);
      assertThat(response.body()).isEqualTo("not a transfer token of this store");
    }
    assertThat(endpoint.put("not-a-token", bytes).statusCode()).isEqualTo(403);
    assertThat(store.stat(PATH)).isEmpty();

    store.create(PATH, new java.io.ByteArrayInputStream(bytes));
    String download = tokens.issue(Access.DOWNLOAD, PATH, TTL);
    assertThat(endpoint.get(changeOneCharacter(download, download.length() / 2)).statusCode()).isEqualTo(403);
  }

  @Test
  void aTokenOfAnotherKeyIsRefused() throws Exception {
    TransferTokens other = new TransferTokens(LocalKeyset.loadOrCreate(temp.resolve("other-keyset.json")),
        Clock.systemUTC());

    assertThat(endpoint.put(other.issue(Access.UPLOAD, PATH, TTL), new byte[] {1}).statusCode()).isEqualTo(403);
    assertThat(store.stat(PATH)).isEmpty();
    store.create(PATH, new java.io.ByteArrayInputStream(new byte[] {1}));
    assertThat(endpoint.get(other.issue(Access.DOWNLOAD, PATH, TTL)).statusCode()).isEqualTo(403);
  }

  @Test
  void anExpiredTokenIsRefused() throws Exception {
    Instant hourAgo = Instant.now().minus(Duration.ofHours(1));
    TransferTokens past = new TransferTokens(key, Clock.fixed(hourAgo, ZoneOffset.UTC));
    byte[] bytes = randomBytes(1_000, 8);

    for (String upload : new String[] {past.issue(Access.UPLOAD, PATH, TTL), tokens.issue(Access.UPLOAD, PATH, Duration.ZERO)}) {
      HttpResponse<String> response = endpoint.put(upload, bytes);
      assertThat(response.statusCode()).isEqualTo(403);
      assertThat(response.body()).startsWith("the transfer token expired at ");
    }
    assertThat(store.stat(PATH)).isEmpty();

    store.create(PATH, new java.io.ByteArrayInputStream(bytes));
    assertThat(endpoint.get(past.issue(Access.DOWNLOAD, PATH, TTL)).statusCode()).isEqualTo(403);
    assertThat(endpoint.get(tokens.issue(Access.DOWNLOAD, PATH, Duration.ZERO)).statusCode()).isEqualTo(403);
  }

  @Test
  void aChunkedUploadCutOffMidStreamStoresNothing() throws Exception {
    String upload = tokens.issue(Access.UPLOAD, PATH, TTL);
    byte[] chunk = randomBytes(100_000, 9);

    endpoint.sendAndHangUp(upload, "Transfer-Encoding: chunked",
        concat(ascii(Integer.toHexString(chunk.length) + "\r\n"), chunk, ascii("\r\n")));

    assertThat(store.stat(PATH)).isEmpty();
    assertThat(store.list("backups/")).isEmpty();
    // The path is still free: the upload can be sent again with the same token.
    byte[] whole = randomBytes(150_000, 10);
    assertThat(endpoint.put(upload, whole).statusCode()).isEqualTo(201);
    assertThat(store.read(PATH)).isEqualTo(whole);
  }

  @Test
  void anUploadShorterThanItsContentLengthStoresNothing() throws Exception {
    String upload = tokens.issue(Access.UPLOAD, PATH, TTL);

    endpoint.sendAndHangUp(upload, "Content-Length: 200000", randomBytes(100_000, 11));

    assertThat(store.stat(PATH)).isEmpty();
    assertThat(store.list("backups/")).isEmpty();
    byte[] whole = randomBytes(200_000, 12);
    assertThat(endpoint.put(upload, whole).statusCode()).isEqualTo(201);
    assertThat(store.read(PATH)).isEqualTo(whole);
  }

  @Test
  void anUnavailableStoreIsServiceUnavailable() throws Exception {
    try (Endpoint broken = new Endpoint(new TransferHandler(tokens, unavailableStore()))) {
      HttpResponse<String> upload = broken.put(tokens.issue(Access.UPLOAD, PATH, TTL), new byte[] {1, 2, 3});
      assertThat(upload.statusCode()).isEqualTo(503);
      assertThat(upload.body()).isEqualTo("the backup store is unavailable");
      assertThat(broken.get(tokens.issue(Access.DOWNLOAD, PATH, TTL)).statusCode()).isEqualTo(503);
    }
  }

  // ---------------------------------------------------------------------------------------------

  static String crc32c(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return Crc32cs.base64(crc);
  }

  static byte[] randomBytes(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static String changeOneCharacter(String token, int position) {
    char replacement = token.charAt(position) == 'A' ? 'B' : 'A';
    return token.substring(0, position) + replacement + token.substring(position + 1);
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] concat(byte[]... parts) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  /** The handler served by a JDK HTTP server on a free loopback port, as the operator serves it. */
  private final class Endpoint implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    /** The raw paths of the exchanges the handler has finished, so a test knows when one is over. */
    private final BlockingQueue<String> finished = new LinkedBlockingQueue<>();

    Endpoint(TransferHandler handler) throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext(TransferHandler.PATH, exchange -> {
        try {
          handler.handle(exchange);
        } finally {
          finished.add(exchange.getRequestURI().getRawPath());
        }
      });
      server.setExecutor(executor);
      server.start();
    }

    URI uri(String token) {
      return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + TransferHandler.PATH + token);
    }

    HttpResponse<String> put(String token, byte[] body) throws IOException, InterruptedException {
      return http.send(HttpRequest.newBuilder(uri(token)).timeout(Duration.ofSeconds(60))
          .PUT(BodyPublishers.ofByteArray(body)).build(), BodyHandlers.ofString());
    }

    HttpResponse<byte[]> get(String token) throws IOException, InterruptedException {
      return send(HttpRequest.newBuilder(uri(token)).GET());
    }

    HttpResponse<byte[]> send(HttpRequest.Builder request) throws IOException, InterruptedException {
      return http.send(request.timeout(Duration.ofSeconds(60)).build(), BodyHandlers.ofByteArray());
    }

    /**
     * Sends a PUT's head and {@code body} over a raw socket, then closes it: a client that died
     * mid-upload. Returns once the handler has finished with the exchange.
     */
    void sendAndHangUp(String token, String framing, byte[] body) throws Exception {
      String rawPath = TransferHandler.PATH + token;
      try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.getAddress().getPort())) {
        OutputStream out = socket.getOutputStream();
        out.write(ascii("PUT " + rawPath + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Content-Type: application/octet-stream\r\n" + framing + "\r\n\r\n"));
        out.write(body);
        out.flush();
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      for (String done; !rawPath.equals(done = finished.poll(1, TimeUnit.SECONDS)); ) {
        assertThat(System.nanoTime()).as("the handler finished the cut-off upload (last: %s)", done).isLessThan(deadline);
      }
    }

    @Override
    public void close() {
      server.stop(0);
      executor.shutdownNow();
    }
  }
}
