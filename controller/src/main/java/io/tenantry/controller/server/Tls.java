package io.tenantry.controller.server;

import static net.logstash.logback.argument.StructuredArguments.kv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS for a listener from a certificate file and a key file in PEM ({@link PemCredentials}), such
 * as a cert-manager Secret mounted in the pod. The files are read again every {@code poll}; when
 * their bytes change and form a matching pair, new connections get the new certificate, with no
 * restart (connections already open keep theirs). A kubelet updates a mounted Secret by swapping its
 * {@code ..data} symlink: both files change at once, and reading them by path follows the swap. A
 * pair that does not match (read across a swap) or does not parse is logged and retried at the next
 * poll; the old certificate is served meanwhile. HTTP/2 is offered by ALPN, HTTP/1.1 otherwise.
 */
public final class Tls extends AbstractLifeCycle {

  /** How often the files are read when a listener is given none. */
  public static final Duration POLL = Duration.ofSeconds(10);
  private static final Logger LOG = LoggerFactory.getLogger(Tls.class);

  private final Path certFile;
  private final Path keyFile;
  private final Duration poll;
  private final SslContextFactory.Server ssl = new SslContextFactory.Server();
  private ScheduledExecutorService watcher;
  private byte[] loadedCert;
  private byte[] loadedKey;

  /**
   * Reads the pair once now.
   *
   * @throws IllegalArgumentException the files cannot be read, or do not hold a matching pair
   */
  public Tls(Path certFile, Path keyFile, Duration poll) {
    this.certFile = certFile;
    this.keyFile = keyFile;
    this.poll = poll;
    try {
      byte[] cert = Files.readAllBytes(certFile);
      byte[] key = Files.readAllBytes(keyFile);
      ssl.setKeyStore(PemCredentials.keyStore(cert, key));
      ssl.setKeyStorePassword(PemCredentials.PASSWORD);
      ssl.setKeyManagerPassword(PemCredentials.PASSWORD);
      loadedCert = cert;
      loadedKey = key;
    } catch (IOException e) {
      throw new UncheckedIOException("TLS: cannot read " + certFile + " or " + keyFile, e);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("TLS: " + certFile + " and " + keyFile + ": " + e.getMessage(), e);
    }
  }

  /** The factories of a TLS connector: TLS, then ALPN choosing HTTP/2 ({@code h2}) or HTTP/1.1. */
  ConnectionFactory[] connectionFactories(HttpConfiguration http, HTTP2ServerConnectionFactory h2) {
    http.addCustomizer(new SecureRequestCustomizer(false)); // clients reach the pod by Service name or IP, not the cert's
    HttpConnectionFactory http1 = new HttpConnectionFactory(http);
    ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory(h2.getProtocol(), http1.getProtocol());
    alpn.setDefaultProtocol(http1.getProtocol());
    return new ConnectionFactory[] {new SslConnectionFactory(ssl, alpn.getProtocol()), alpn, h2, http1};
  }

  @Override
  protected void doStart() {
    watcher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "http-tls-reload");
      t.setDaemon(true);
      return t;
    });
    watcher.scheduleWithFixedDelay(this::reloadIfChanged, poll.toMillis(), poll.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  protected void doStop() {
    watcher.shutdownNow();
  }

  /** Serves the files' pair from the next connection on, when it differs from the one served and is whole. */
  void reloadIfChanged() {
    try {
      byte[] cert = Files.readAllBytes(certFile);
      byte[] key = Files.readAllBytes(keyFile);
      if (Arrays.equals(cert, loadedCert) && Arrays.equals(key, loadedKey)) {
        return;
      }
      KeyStore store = PemCredentials.keyStore(cert, key);
      ssl.reload(factory -> factory.setKeyStore(store));
      loadedCert = cert;
      loadedKey = key;
      LOG.info("TLS certificate reloaded {}", kv("certFile", certFile));
    } catch (Exception e) { // unreadable, half-rotated, or refused by Jetty: keep serving the old pair
      LOG.warn("TLS certificate not reloaded; the previous one is served {} {}", kv("certFile", certFile),
          kv("error", e.getMessage()));
    }
  }
}
