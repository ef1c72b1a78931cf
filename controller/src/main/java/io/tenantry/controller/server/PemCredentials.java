package io.tenantry.controller.server;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A certificate chain and its private key in PEM, as cert-manager writes them into a Secret
 * ({@code tls.crt}, {@code tls.key}), made into an in-memory key store for Jetty. The key may be
 * PKCS#1 RSA ({@code BEGIN RSA PRIVATE KEY}, cert-manager's default) or PKCS#8
 * ({@code BEGIN PRIVATE KEY}, RSA or EC). The key must match the first certificate: a pair read
 * half-way through a rotation is refused, not served.
 */
final class PemCredentials {

  /** The in-memory key store's password: it protects nothing (the store never leaves the process). */
  static final String PASSWORD = "in-memory";
  private static final Pattern KEY = Pattern.compile(
      "-----BEGIN (RSA )?PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END (RSA )?PRIVATE KEY-----");
  /** The DER of PKCS#8's AlgorithmIdentifier for rsaEncryption (1.2.840.113549.1.1.1) with NULL parameters. */
  private static final byte[] RSA_ALGORITHM = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d,
      0x01, 0x01, 0x01, 0x05, 0x00};

  private PemCredentials() {
  }

  /**
   * A key store with one entry, the key and its chain.
   *
   * @throws GeneralSecurityException the PEM is not a chain and a matching key (the message names
   *     what is wrong, never the key's bytes)
   */
  static KeyStore keyStore(byte[] certPem, byte[] keyPem) throws GeneralSecurityException {
    List<? extends Certificate> chain = List.copyOf(CertificateFactory.getInstance("X.509")
        .generateCertificates(new ByteArrayInputStream(certPem)));
    if (chain.isEmpty()) {
      throw new GeneralSecurityException("no certificate in the certificate file");
    }
    PrivateKey key = privateKey(new String(keyPem, StandardCharsets.US_ASCII));
    requireMatch(key, chain.get(0));
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("tls", key, PASSWORD.toCharArray(), chain.toArray(Certificate[]::new));
      return store;
    } catch (IOException e) {
      throw new GeneralSecurityException("cannot make a key store: " + e.getMessage(), e);
    }
  }

  private static PrivateKey privateKey(String pem) throws GeneralSecurityException {
    Matcher m = KEY.matcher(pem);
    if (!m.find()) {
      throw new GeneralSecurityException("the key file holds no PEM private key (BEGIN RSA PRIVATE KEY or BEGIN PRIVATE KEY)");
    }
    byte[] der = Base64.getMimeDecoder().decode(m.group(2));
    if (m.group(1) != null) { // PKCS#1: wrapped into PKCS#8, which is what the JDK reads
      return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(pkcs8(der)));
    }
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    try {
      return KeyFactory.getInstance("RSA").generatePrivate(spec);
    } catch (GeneralSecurityException notRsa) {
      return KeyFactory.getInstance("EC").generatePrivate(spec);
    }
  }

  /** PrivateKeyInfo ::= SEQUENCE { version 0, rsaEncryption, OCTET STRING pkcs1 }. */
  private static byte[] pkcs8(byte[] pkcs1) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(new byte[] {0x02, 0x01, 0x00});
    body.writeBytes(RSA_ALGORITHM);
    body.write(0x04);
    body.writeBytes(length(pkcs1.length));
    body.writeBytes(pkcs1);
    ByteArrayOutputStream info = new ByteArrayOutputStream();
    info.write(0x30);
    info.writeBytes(length(body.size()));
    info.writeBytes(body.toByteArray());
    return info.toByteArray();
  }

  /** A DER length: one byte below 128, else 0x80 + the count of big-endian bytes that follow. */
  private static byte[] length(int n) {
    if (n < 128) {
      return new byte[] {(byte) n};
    }
    int bytes = n > 0xffffff ? 4 : n > 0xffff ? 3 : n > 0xff ? 2 : 1;
    byte[] out = new byte[bytes + 1];
    out[0] = (byte) (0x80 + bytes);
    for (int i = bytes; i > 0; i--) {
      out[i] = (byte) n;
      n >>>= 8;
    }
    return out;
  }

  /** Signs with the key and verifies with the certificate: they belong together. */
  private static void requireMatch(PrivateKey key, Certificate certificate) throws GeneralSecurityException {
    String algorithm = "EC".equals(key.getAlgorithm()) ? "SHA256withECDSA" : "SHA256withRSA";
    byte[] probe = "tenantry".getBytes(StandardCharsets.US_ASCII);
    Signature signer = Signature.getInstance(algorithm);
    signer.initSign(key);
    signer.update(probe);
    byte[] signature = signer.sign();
    Signature verifier = Signature.getInstance(algorithm);
    verifier.initVerify(certificate.getPublicKey());
    verifier.update(probe);
    if (!verifier.verify(signature)) {
      throw new GeneralSecurityException("the key does not match the certificate");
    }
  }
}
