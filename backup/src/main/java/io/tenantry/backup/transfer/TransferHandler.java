package io.tenantry.backup.transfer;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.tenantry.backup.store.BackupStore;
import io.tenantry.backup.store.BackupStoreUnavailableException;
import io.tenantry.backup.store.NoSuchObjectException;
import io.tenantry.backup.store.ObjectExistsException;
import io.tenantry.backup.store.SourceFailedException;
import io.tenantry.backup.store.StoredObject;
import io.tenantry.backup.transfer.TransferTokens.Access;
import io.tenantry.backup.transfer.TransferTokens.Grant;
import io.tenantry.backup.transfer.TransferTokens.InvalidTokenException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's transfer endpoint, {@code /backup-transfer/v1/<token>}: how backup and restore
 * Jobs move encrypted bytes without holding any credential of the store. {@code PUT} with an upload
 * token creates its one object (201; 409 if it exists: never replaced); {@code GET} with a download
 * token streams its one object; {@code PUT .../report} creates the one report its token names (at
 * most {@value #MAX_REPORT_BYTES} bytes, also once): beside an upload's object, or a restore's own. Every other request is refused: another method
 * (405), a token for the other access or none at all (403). The object's bytes are ciphertext: the
 * operator never sees a dump. Tokens are never logged.
 */
public final class TransferHandler implements HttpHandler {

  public static final String PATH = "/backup-transfer/v1/";
  /** Appended to a transfer URL: where the agent's report goes. */
  public static final String REPORT = "/report";
  static final int MAX_REPORT_BYTES = 8192;
  private static final Logger log = LoggerFactory.getLogger(TransferHandler.class);
  private final TransferTokens tokens;
  private final BackupStore store;

  public TransferHandler(TransferTokens tokens, BackupStore store) {
    this.tokens = tokens;
    this.store = store;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      // One exchange per connection, said so: a client that read a download to its end would
      // otherwise keep the connection for its next request, which finds it closed.
      exchange.getResponseHeaders().set("Connection", "close");
      serve(exchange);
    } catch (RuntimeException e) {
      // The JDK server would close the connection without a word: say it, and log why.
      log.error("Transfer failed: {}", e.toString(), e);
      exchange.sendResponseHeaders(500, -1);
    }
  }

  private void serve(HttpExchange exchange) throws IOException {
    {
      String method = exchange.getRequestMethod();
      if (!method.equals("PUT") && !method.equals("GET")) {
        exchange.getResponseHeaders().set("Allow", "GET, PUT");
        answer(exchange, 405, "only GET (download) and PUT (upload) of one object");
        return;
      }
      Grant grant;
      try {
        grant = tokens.verify(token(exchange));
      } catch (InvalidTokenException e) {
        answer(exchange, 403, e.getMessage());
        return;
      }
      if (method.equals("PUT") && report(exchange)) {
        if (grant.report() == null) {
          answer(exchange, 403, "this token grants no report");
        } else {
          upload(exchange, grant.report(), MAX_REPORT_BYTES);
        }
        return;
      }
      Access wanted = method.equals("PUT") ? Access.UPLOAD : Access.DOWNLOAD;
      if (grant.access() != wanted) {
        answer(exchange, 403, "this token grants " + grant.access().name().toLowerCase(java.util.Locale.ROOT) + " only");
        return;
      }
      if (wanted == Access.UPLOAD) {
        upload(exchange, grant.path(), Long.MAX_VALUE);
      } else {
        download(exchange, grant.path());
      }
    }
  }

  private void upload(HttpExchange exchange, String path, long maxBytes) throws IOException {
    try (InputStream body = new Bounded(exchange.getRequestBody(), maxBytes)) {
      StoredObject object = store.create(path, body);
      log.info("Stored backup object {} ({} bytes)", path, object.size());
      answer(exchange, 201, "{\"size\":" + object.size() + ",\"crc32c\":\"" + object.crc32c() + "\"}");
    } catch (ObjectExistsException e) {
      answer(exchange, 409, e.getMessage());
    } catch (SourceFailedException e) {
      log.warn("The upload of {} ended early; nothing stored: {}", path, e.getMessage());
      answer(exchange, 400, "the upload ended early; nothing was stored");
    } catch (BackupStoreUnavailableException e) {
      log.warn("Cannot store {}: {}", path, e.getMessage());
      answer(exchange, 503, "the backup store is unavailable");
    }
  }

  private void download(HttpExchange exchange, String path) throws IOException {
    InputStream in;
    try {
      in = store.open(path);
    } catch (NoSuchObjectException e) {
      answer(exchange, 404, "no such backup object");
      return;
    } catch (BackupStoreUnavailableException e) {
      log.warn("Cannot read {}: {}", path, e.getMessage());
      answer(exchange, 503, "the backup store is unavailable");
      return;
    }
    try (in) {
      exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
      exchange.sendResponseHeaders(200, 0);
      try (OutputStream out = exchange.getResponseBody()) {
        in.transferTo(out);
      }
    }
  }

  private static String token(HttpExchange exchange) {
    String path = exchange.getRequestURI().getRawPath();
    String token = path.startsWith(PATH) ? path.substring(PATH.length()) : "";
    return token.endsWith(REPORT) ? token.substring(0, token.length() - REPORT.length()) : token;
  }

  private static boolean report(HttpExchange exchange) {
    return exchange.getRequestURI().getRawPath().endsWith(REPORT);
  }

  /** A body cut off past {@code max} bytes: the store then stores nothing. */
  private static final class Bounded extends java.io.FilterInputStream {
    private long left;

    Bounded(InputStream in, long max) {
      super(in);
      this.left = max;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0 && (left -= n) < 0) {
        throw new IOException("more than the " + MAX_REPORT_BYTES + " bytes a report may have");
      }
      return n;
    }
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", status == 201 ? "application/json" : "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
