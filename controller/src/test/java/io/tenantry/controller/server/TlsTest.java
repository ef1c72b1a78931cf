package io.tenantry.controller.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API listener with TLS from a mounted Secret, laid out as the kubelet lays it out (the files
 * are symlinks through {@code ..data} to a timestamped directory, swapped whole on update), with
 * keys in cert-manager's default format, PKCS#1 RSA, or PKCS#8 (RSA or EC). Certificates are made by openssl in the test.
 */
class TlsTest {

  private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

  @TempDir
  Path dir;
  private HttpEndpoints http;

  @AfterEach
  void stop() {
    if (http != null) {
      http.close();
    }
  }

  @Test
  void aRotatedSecretIsServedToTheNextConnectionWithoutARestart() throws Exception {
    Path secret = serving("first");
    BigInteger first = serial(certificateServed());
    assertThat(first).isEqualTo(serialOf(secret.resolve("tls.crt")));

    mount(secret, "..2026_01_02_00_00_00.2", "second");
    BigInteger second = serialOf(secret.resolve("tls.crt"));
    assertThat(second).isNotEqualTo(first);
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
        .until(() -> serial(certificateServed()).equals(second));
    assertThat(get(HttpClient.Version.HTTP_1_1).body()).isEqualTo("ok");
  }

  @Test
  void http2IsNegotiatedWhenTheClientAsksForIt() throws Exception {
    serving("only");

    HttpResponse<String> h2 = get(HttpClient.Version.HTTP_2);
    assertThat(h2.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(h2.body()).isEqualTo("ok");
    assertThat(get(HttpClient.Version.HTTP_1_1).version()).isEqualTo(HttpClient.Version.HTTP_1_1);
  }

  @Test
  void pkcs8KeysRsaAndEcAreServedToo() throws Exception {
    for (String algorithm : new String[] {"rsa:2048", "ec"}) {
      Path secret = dir.resolve(algorithm.replace(':', '-'));
      Files.createDirectories(secret);
      run("openssl", "req", "-x509", "-newkey", algorithm, "-pkeyopt", algorithm.equals("ec") ? "ec_paramgen_curve:prime256v1"
          : "rsa_keygen_bits:2048", "-nodes", "-days", "1", "-subj", "/CN=" + algorithm, "-addext", "subjectAltName=IP:127.0.0.1",
          "-keyout", secret.resolve("tls.key").toString(), "-out", secret.resolve("tls.crt").toString());
      assertThat(Files.readString(secret.resolve("tls.key"))).as(algorithm).startsWith("-----BEGIN PRIVATE KEY-----");
      start(secret);

      assertThat(serial(certificateServed())).as(algorithm).isEqualTo(serialOf(secret.resolve("tls.crt")));
      assertThat(get(HttpClient.Version.HTTP_2).body()).isEqualTo("ok");
      http.close();
      http = null;
    }
  }

  @Test
  void aKeyThatDoesNotMatchTheCertificateIsRefused() throws Exception {
    Path a = dir.resolve("a");
    Path b = dir.resolve("b");
    Files.createDirectories(a);
    Files.createDirectories(b);
    openssl(a, "a");
    openssl(b, "b");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Tls(a.resolve("tls.crt"), b.resolve("tls.key"), Tls.POLL))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not match");
  }

  /** A Secret mounted as the kubelet mounts it, holding a pair made for {@code name}, served over TLS. */
  private Path serving(String name) throws Exception {
    Path secret = dir.resolve("secret");
    Files.createDirectories(secret);
    mount(secret, "..2026_01_01_00_00_00.1", name);
    start(secret);
    return secret;
  }

  private void start(Path secret) {
    http = new HttpEndpoints(new InetSocketAddress(LOOPBACK, 0), new InetSocketAddress(LOOPBACK, 0),
        new HttpEndpoints.Limits(4, 4, 16, Duration.ofSeconds(5), Duration.ofSeconds(5)),
        new Tls(secret.resolve("tls.crt"), secret.resolve("tls.key"), Duration.ofMillis(100)), () -> true, () -> true,
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    http.serve("/v1/ping", new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        Content.Sink.write(response, true, "ok", callback);
        return true;
      }
    });
    http.start();
  }

  /**
   * Writes a new certificate and PKCS#1 key into {@code secret/version} and points {@code ..data} at
   * it by an atomic rename, as the kubelet's atomic writer does; {@code tls.crt} and {@code tls.key}
   * are symlinks through {@code ..data}.
   */
  private static void mount(Path secret, String version, String name) throws Exception {
    Path target = secret.resolve(version);
    Files.createDirectories(target);
    openssl(target, name);
    Path tmp = secret.resolve("..data_tmp");
    Files.createSymbolicLink(tmp, Path.of(version));
    Files.move(tmp, secret.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    for (String file : new String[] {"tls.crt", "tls.key"}) {
      if (!Files.exists(secret.resolve(file), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        Files.createSymbolicLink(secret.resolve(file), Path.of("..data", file));
      }
    }
  }

  /** A self-signed certificate for 127.0.0.1 and its key, PKCS#1 ({@code BEGIN RSA PRIVATE KEY}). */
  private static void openssl(Path into, String name) throws Exception {
    Path pkcs8 = into.resolve("key.pk8");
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=" + name,
        "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", pkcs8.toString(), "-out", into.resolve("tls.crt").toString());
    run("openssl", "rsa", "-traditional", "-in", pkcs8.toString(), "-out", into.resolve("tls.key").toString());
    Files.delete(pkcs8);
    assertThat(Files.readString(into.resolve("tls.key"))).startsWith("-----BEGIN RSA PRIVATE KEY-----");
  }

  private static void run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor()).as(output).isZero();
  }

  private X509Certificate certificateServed() throws Exception {
    try (SSLSocket socket = (SSLSocket) trustAll().getSocketFactory().createSocket(LOOPBACK, http.port())) {
      socket.startHandshake();
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }
  }

  private HttpResponse<String> get(HttpClient.Version version) throws Exception {
    HttpClient client = HttpClient.newBuilder().sslContext(trustAll()).version(version).build();
    return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + http.port() + "/v1/ping")).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static BigInteger serial(X509Certificate certificate) {
    return certificate.getSerialNumber();
  }

  private static BigInteger serialOf(Path pem) throws Exception {
    try (var in = Files.newInputStream(pem)) {
      return ((X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in))
          .getSerialNumber();
    }
  }

  /** Trusts any server: the test checks which certificate is served, not who signed it. */
  private static SSLContext trustAll() throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new TrustManager[] {new X509TrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType) {
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType) {
      }

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    }}, new SecureRandom());
    return context;
  }
}
