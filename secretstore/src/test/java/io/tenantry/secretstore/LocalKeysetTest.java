package io.tenantry.secretstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.crypto.tink.Aead;
import com.google.crypto.tink.InsecureSecretKeyAccess;
import com.google.crypto.tink.KeysetHandle;
import com.google.crypto.tink.RegistryConfiguration;
import com.google.crypto.tink.TinkJsonProtoKeysetFormat;
import com.google.crypto.tink.aead.AeadConfig;
import com.google.crypto.tink.aead.PredefinedAeadParameters;
import com.google.crypto.tink.mac.MacConfig;
import com.google.crypto.tink.mac.PredefinedMacParameters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalKeysetTest {

  @TempDir
  Path dir;

  @Test
  void createsAnOwnerOnlyAes256GcmKeysetOnFirstUseAndReusesIt() throws Exception {
    Path file = dir.resolve("keys/keyset.json");
    Aead first = LocalKeyset.loadOrCreate(file);

    assertThat(file).isRegularFile();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    assertThat(Files.readString(file)).contains("type.googleapis.com/google.crypto.tink.AesGcmKey");
    byte[] ciphertext = first.encrypt("hello".getBytes(UTF_8), "ad".getBytes(UTF_8));

    Aead again = LocalKeyset.loadOrCreate(file);
    assertThat(again.decrypt(ciphertext, "ad".getBytes(UTF_8))).isEqualTo("hello".getBytes(UTF_8));
    try (var entries = Files.list(file.getParent())) {
      assertThat(entries).containsExactly(file);
    }
  }

  @Test
  void concurrentCreatorsEndUpWithOneKeyset() throws Exception {
    Path file = dir.resolve("keyset.json");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Aead>> results = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        results.add(pool.submit((Callable<Aead>) () -> LocalKeyset.loadOrCreate(file)));
      }
      byte[] ciphertext = results.get(0).get().encrypt(new byte[] {42}, new byte[0]);
      for (Future<Aead> result : results) {
        assertThat(result.get().decrypt(ciphertext, new byte[0])).containsExactly(42);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void loadsAnExistingKeysetWrittenByTink() throws Exception {
    AeadConfig.register();
    KeysetHandle handle = KeysetHandle.generateNew(PredefinedAeadParameters.AES256_GCM);
    Path file = dir.resolve("existing.json");
    Files.writeString(file, TinkJsonProtoKeysetFormat.serializeKeyset(handle, InsecureSecretKeyAccess.get()));
    byte[] ciphertext = handle.getPrimitive(RegistryConfiguration.get(), Aead.class)
        .encrypt("hello".getBytes(UTF_8), new byte[0]);

    assertThat(LocalKeyset.load(file).decrypt(ciphertext, new byte[0])).isEqualTo("hello".getBytes(UTF_8));
  }

  @Test
  void loadRefusesAMissingFileNamingIt() {
    Path file = dir.resolve("missing.json");
    assertThatThrownBy(() -> LocalKeyset.load(file))
        .isInstanceOf(KeyUnavailableException.class)
        .hasMessage("keyset file " + file + " does not exist");
    assertThat(file).doesNotExist();
  }

  @Test
  void loadRefusesAFileThatIsNotAnAeadKeyset() throws Exception {
    Path garbage = dir.resolve("garbage.json");
    Files.writeString(garbage, "{\"not\": \"a keyset\"}");
    assertThatThrownBy(() -> LocalKeyset.load(garbage))
        .isInstanceOf(KeyUnavailableException.class)
        .hasMessageStartingWith("keyset file " + garbage + " is not a Tink AEAD keyset in JSON");

    MacConfig.register();
    Path mac = dir.resolve("mac.json");
    Files.writeString(mac, TinkJsonProtoKeysetFormat.serializeKeyset(
        KeysetHandle.generateNew(PredefinedMacParameters.HMAC_SHA256_256BITTAG), InsecureSecretKeyAccess.get()));
    assertThatThrownBy(() -> LocalKeyset.load(mac))
        .isInstanceOf(KeyUnavailableException.class)
        .hasMessageStartingWith("keyset file " + mac + " is not a Tink AEAD keyset in JSON");
  }
}
