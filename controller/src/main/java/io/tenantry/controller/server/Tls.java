package io.tenantry.controller.server;

import static net.logstash.logback.argument.StructuredArguments.kv;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS for a listener from a certificate chain and its private key in PEM, as cert-manager writes
 * them into a Secret ({@code tls.crt}, {@code tls.key}): the key PKCS#1 RSA ({@code BEGIN RSA PRIVATE
 * KEY}, cert-manager's default) or PKCS#8 ({@code BEGIN PRIVATE KEY}, RSA or EC), and it must match
 * the first certificate. HTTP/2 is offered by ALPN, HTTP/1.1 otherwise.
 *
 * <p>Rotation without a restart: when a connection opens and {@code poll} has passed since the last
 * look, the files are read again; when their bytes changed and hold a matching pair, that connection
 * and the next get the new certificate (those open keep theirs). The kubelet updates a mounted
 * Secret by swapping its {@code ..data} symlink, and reading the files by path follows the swap. A
 * pair that does not parse or match (read across a swap) is logged and the old one served. (Jetty's
 * {@code KeyStoreScanner} does not fit: it reloads one key store file, watched by its real path as
 * resolved at start, which the swap replaces.)
 */
public final class Tls {

  /** How long a listener goes on with the files it read before it reads them again. */
  public static final Duration POLL = Duration.ofSeconds(10);
  private static final Logger LOG = LoggerFactory.getLogger(Tls.class);
  /** The in-memory key store's password: it protects nothing (the store never leaves the process). */
  private static final String PASSWORD = "in-memory";
  private static final Pattern KEY = Pattern.compile(
      "-----BEGIN (RSA )?PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END (RSA )?PRIVATE KEY-----");
  /** PKCS#8's version 0 and AlgorithmIdentifier rsaEncryption (1.2.840.113549.1.1.1) with NULL parameters, in DER. */
  private static final byte[] PKCS8_RSA = {0x02, 0x01, 0x00, 0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86,
      (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};

  private final Path certFile;
  private final Path keyFile;
  private final long pollNanos;
  private final SslContextFactory.Server ssl = new SslContextFactory.Server();
  private long lookedAt = System.nanoTime();
  private byte[] cert;
  private byte[] key;

  /**
   * Reads the pair once now.
   *
   * @throws IllegalArgumentException the files cannot be read, or do not hold a matching pair
   */
  public Tls(Path certFile, Path keyFile, Duration poll) {
    this.certFile = certFile;
    this.keyFile = keyFile;
    this.pollNanos = poll.toNanos();
    try {
      cert = Files.readAllBytes(certFile);
      key = Files.readAllBytes(keyFile);
      ssl.setKeyStore(keyStore(cert, key));
    } catch (IOException e) {
      throw new UncheckedIOException("TLS: cannot read " + certFile + " or " + keyFile, e);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("TLS: " + certFile + " and " + keyFile + ": " + e.getMessage(), e);
    }
    ssl.setKeyStorePassword(PASSWORD);
  }

  /** The factories of a TLS connector: TLS (the files looked at again as a connection opens), then ALPN: h2 or HTTP/1.1. */
  ConnectionFactory[] connectionFactories(HttpConfiguration http) {
    http.addCustomizer(new SecureRequestCustomizer(false)); // clients reach the pod by Service name or IP, not the cert's
    HttpConnectionFactory http1 = new HttpConnectionFactory(http);
    HTTP2ServerConnectionFactory h2 = new HTTP2ServerConnectionFactory(http);
    ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory(h2.getProtocol(), http1.getProtocol());
    alpn.setDefaultProtocol(http1.getProtocol());
    SslConnectionFactory tls = new SslConnectionFactory(ssl, alpn.getProtocol()) {
      @Override
      public Connection newConnection(Connector connector, EndPoint endPoint) {
        reloadIfDue();
        return super.newConnection(connector, endPoint);
      }
    };
    return new ConnectionFactory[] {tls, alpn, h2, http1};
  }

  /** When {@code poll} has passed since the last look, serves the files' pair from now on if it changed and is whole. */
  private synchronized void reloadIfDue() {
    long now = System.nanoTime();
    if (now - lookedAt < pollNanos) {
      return;
    }
    lookedAt = now;
    try {
      byte[] newCert = Files.readAllBytes(certFile);
      byte[] newKey = Files.readAllBytes(keyFile);
      if (Arrays.equals(newCert, cert) && Arrays.equals(newKey, key)) {
        return;
      }
      KeyStore store = keyStore(newCert, newKey);
      ssl.reload(factory -> factory.setKeyStore(store));
      cert = newCert;
      key = newKey;
      LOG.info("TLS certificate reloaded {}", kv("certFile", certFile));
    } catch (Exception e) { // unreadable, half-rotated, or refused by Jetty: keep serving the old pair
      LOG.warn("TLS certificate not reloaded; the previous one is served {} {}", kv("certFile", certFile),
          kv("error", e.getMessage()));
    }
  }

  /** A key store of one entry, the key and its chain; the message of what it throws never holds the key's bytes. */
  static KeyStore keyStore(byte[] certPem, byte[] keyPem) throws GeneralSecurityException, IOException {
    Certificate[] chain = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(certPem))
        .toArray(Certificate[]::new);
    if (chain.length == 0) {
      throw new GeneralSecurityException("no certificate in the certificate file");
    }
    PrivateKey key = privateKey(new String(keyPem, StandardCharsets.US_ASCII));
    requireMatch(key, chain[0]);
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry("tls", key, PASSWORD.toCharArray(), chain);
    return store;
  }

  private static PrivateKey privateKey(String pem) throws GeneralSecurityException {
    Matcher m = KEY.matcher(pem);
    if (!m.find()) {
      throw new GeneralSecurityException("the key file holds no PEM private key (BEGIN RSA PRIVATE KEY or BEGIN PRIVATE KEY)");
    }
    byte[] der = Base64.getMimeDecoder().decode(m.group(2));
    if (m.group(1) != null) { // PKCS#1, wrapped as PKCS#8 (what the JDK reads): SEQUENCE { 0, rsaEncryption, OCTET STRING }
      der = der(0x30, PKCS8_RSA, der(0x04, der));
    }
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    try {
      return KeyFactory.getInstance("RSA").generatePrivate(spec);
    } catch (GeneralSecurityException notRsa) {
      return KeyFactory.getInstance("EC").generatePrivate(spec);
    }
  }

  /** A DER element: its tag, its length (short form, else 0x81 or 0x82 and one or two bytes: keys are far below 64 KiB), its value. */
  private static byte[] der(int tag, byte[]... value) {
    int length = Arrays.stream(value).mapToInt(part -> part.length).sum();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    if (length > 0xff) {
      out.write(0x82);
      out.write(length >> 8);
    } else if (length > 0x7f) {
      out.write(0x81);
    }
    out.write(length);
    Arrays.stream(value).forEach(out::writeBytes);
    return out.toByteArray();
  }

  /** Signs with the key and verifies with the certificate: they belong together. */
  private static void requireMatch(PrivateKey key, Certificate certificate) throws GeneralSecurityException {
    String algorithm = "EC".equals(key.getAlgorithm()) ? "SHA256withECDSA" : "SHA256withRSA";
    byte[] probe = "tenantry".getBytes(StandardCharsets.US_ASCII);
    Signature signer = Signature.getInstance(algorithm);
    signer.initSign(key);
    signer.update(probe);
    Signature verifier = Signature.getInstance(algorithm);
    verifier.initVerify(certificate.getPublicKey());
    verifier.update(probe);
    if (!verifier.verify(signer.sign())) {
      throw new GeneralSecurityException("the key does not match the certificate");
    }
  }
}
