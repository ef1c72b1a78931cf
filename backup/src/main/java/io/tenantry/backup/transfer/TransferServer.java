package io.tenantry.backup.transfer;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The transfer endpoint's own listener, apart from the API's: a transfer may stream gigabytes for
 * minutes, which the API listener's request deadlines would cut. It has a thread per transfer the
 * cluster allows at once (backups and restores) and nothing else.
 */
public final class TransferServer implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService threads;

  public TransferServer(InetSocketAddress address, TransferHandler handler, int transfers) throws IOException {
    server = HttpServer.create(address, transfers * 2);
    threads = Executors.newFixedThreadPool(transfers, r -> {
      Thread thread = new Thread(r, "backup-transfer");
      thread.setDaemon(true);
      return thread;
    });
    server.createContext(TransferHandler.PATH, handler);
    server.setExecutor(threads);
  }

  public void start() {
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(1);
    threads.shutdownNow();
  }
}
