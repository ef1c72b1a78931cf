package io.tenantry.secretstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretFormatTest {

  @Test
  void encodesKeysInOrderWithBase64Values() {
    Map<String, byte[]> data = new LinkedHashMap<>();
    data.put("user", "app".getBytes(UTF_8));
    data.put("password", "s3cr3t".getBytes(UTF_8));
    assertThat(new String(SecretFormat.canonical(data), UTF_8)).isEqualTo("{\"password\":\"czNjcjN0\",\"user\":\"YXBw\"}");
    assertThat(new String(SecretFormat.canonical(Map.of()), UTF_8)).isEqualTo("{}");
  }

  @Test
  void hashesTheCanonicalEncodingWithSha256() {
    // Pinned: printf '%s' '{"password":"czNjcjN0","user":"YXBw"}' | sha256sum
    Map<String, byte[]> data = Map.of("user", "app".getBytes(UTF_8), "password", "s3cr3t".getBytes(UTF_8));
    assertThat(SecretFormat.contentHash(data))
        .isEqualTo("6369638efe31fd26fdbe5d33877159edb9320c3aa4994805a142ebeb04770d97");
    assertThat(SecretFormat.contentHash(Map.of()))
        .isEqualTo("44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
  }

  @Test
  void hashDependsOnEveryKeyAndValue() {
    String base = SecretFormat.contentHash(Map.of("a", new byte[] {1}, "b", new byte[] {2}));
    assertThat(SecretFormat.contentHash(Map.of("a", new byte[] {1}, "b", new byte[] {3}))).isNotEqualTo(base);
    assertThat(SecretFormat.contentHash(Map.of("a", new byte[] {1}, "c", new byte[] {2}))).isNotEqualTo(base);
    assertThat(SecretFormat.contentHash(Map.of("a", new byte[] {1}))).isNotEqualTo(base);
    assertThat(SecretFormat.contentHash(Map.of("b", new byte[] {2}, "a", new byte[] {1}))).isEqualTo(base);
  }

  @Test
  void decodesWhatItEncodesWithEveryByteValue() {
    byte[] everyByte = new byte[256];
    for (int i = 0; i < everyByte.length; i++) {
      everyByte[i] = (byte) i;
    }
    Map<String, byte[]> decoded = SecretFormat.decode("template/x",
        SecretFormat.canonical(Map.of("bin", everyByte, "empty", new byte[0])));
    assertThat(decoded).containsOnlyKeys("bin", "empty");
    assertThat(decoded.get("bin")).isEqualTo(everyByte);
    assertThat(decoded.get("empty")).isEmpty();
  }

  @Test
  void refusesPlaintextThatIsNotTheFormat() {
    for (String plaintext : new String[] {"not json", "{\"a\":\"%%%\"}", "{\"a b\":\"AQ==\"}", "{\"a\":\"AQ==\"} x",
        "[]", "{\"a\":\"AQ==\",\"a\":\"AQ==\"}"}) {
      assertThatThrownBy(() -> SecretFormat.decode("tenants/acme/db", plaintext.getBytes(UTF_8)))
          .isInstanceOfSatisfying(CorruptSecretException.class, e -> assertThat(e.path()).isEqualTo("tenants/acme/db"))
          .hasMessageStartingWith("cannot decode tenants/acme/db");
    }
  }
}
