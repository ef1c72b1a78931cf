package io.tenantry.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.crypto.tink.Aead;
import io.tenantry.secretstore.LocalKeyset;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The archive manifest: where it is, that it opens as written, and what must not open. */
class ArchiveManifestTest {

  private static final String UID = "0c4b7e3a-1111-2222-3333-444455556666";
  private static final ArchiveManifest ARCHIVE = ArchiveManifest.of("eu-1", "acme", UID, Instant.parse("2026-11-26T10:00:00.123Z"),
      List.of(new ArchiveManifest.Database("main", "main-20261126-095900-abcdef", "ab".repeat(32), Map.of("public.orders", 10_000L))));
  private static Aead kek;
  private static Aead otherKek;

  @BeforeAll
  static void keys(@TempDir Path dir) {
    kek = LocalKeyset.loadOrCreate(dir.resolve("keyset.json"));
    otherKek = LocalKeyset.loadOrCreate(dir.resolve("other.json"));
  }

  @Test
  void itLiesUnderItsTenantsPrefixWhereNoDatabaseCanBeAndOpensAsWritten() throws GeneralSecurityException {
    assertThat(ARCHIVE.path()).isEqualTo("backups/eu-1/acme-" + UID + "/_archives/20261126-100000-123.archive");
    assertThat(ArchiveManifest.open(ARCHIVE.seal(kek), kek, ARCHIVE.path())).isEqualTo(ARCHIVE);
  }

  @Test
  void oneMovedUnderAnotherTenantOrSealedByAnotherKeyOrFlippedDoesNotOpen() throws GeneralSecurityException {
    byte[] sealed = ARCHIVE.seal(kek);
    String moved = ARCHIVE.path().replace("acme-", "umbrella-");
    assertThatThrownBy(() -> ArchiveManifest.open(sealed, kek, moved)).isInstanceOf(GeneralSecurityException.class);
    assertThatThrownBy(() -> ArchiveManifest.open(ARCHIVE.seal(otherKek), kek, ARCHIVE.path()))
        .isInstanceOf(GeneralSecurityException.class);
    byte[] flipped = sealed.clone();
    flipped[flipped.length / 2] ^= 1;
    assertThatThrownBy(() -> ArchiveManifest.open(flipped, kek, ARCHIVE.path())).isInstanceOf(GeneralSecurityException.class);
  }
}
