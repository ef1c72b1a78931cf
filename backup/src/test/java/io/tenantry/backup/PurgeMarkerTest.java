package io.tenantry.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.crypto.tink.Aead;
import io.tenantry.secretstore.LocalKeyset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Instant;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The purge marker: where it is, what opens, and everything that must not. */
class PurgeMarkerTest {

  private static final String UID = "0c4b7e3a-1111-2222-3333-444455556666";
  private static final String OTHER_UID = "9f00aa00-1111-2222-3333-444455556666";
  private static final PurgeMarker MARKER = PurgeMarker.of("eu-1", "acme", UID, Instant.parse("2026-11-26T10:00:00Z"));
  private static Aead kek;
  private static Aead otherKek;

  @BeforeAll
  static void keys(@TempDir Path dir) {
    kek = LocalKeyset.loadOrCreate(dir.resolve("keyset.json"));
    otherKek = LocalKeyset.loadOrCreate(dir.resolve("other.json"));
  }

  @Test
  void theMarkerLiesDirectlyUnderItsTenantsPrefixBesideTheDatabases() {
    assertThat(MARKER.path()).isEqualTo("backups/eu-1/acme-" + UID + "/_purged");
    assertThat(MARKER.tenantPrefix()).isEqualTo(new BackupLocation("eu-1", "acme", UID, "main").tenantPrefix());
    assertThat(PurgeMarker.isMarkerPath("backups/eu-1/", MARKER.path())).isTrue();
    assertThat(PurgeMarker.isMarkerPath("backups/eu-1/", "backups/eu-1/acme-" + UID + "/main/_purged")).isFalse();
    assertThat(PurgeMarker.isMarkerPath("backups/eu-1/", "backups/eu-1/_purged")).isFalse();
    assertThat(PurgeMarker.isMarkerPath("backups/eu-2/", MARKER.path())).isFalse();
  }

  @Test
  void aSealedMarkerOpensAtItsPathWithTheStoresKey() throws GeneralSecurityException {
    byte[] sealed = MARKER.seal(kek);

    assertThat(new String(sealed, StandardCharsets.ISO_8859_1)).doesNotContain("acme");
    assertThat(PurgeMarker.open(sealed, kek, MARKER.path())).isEqualTo(MARKER);
  }

  @Test
  void aMarkerMovedToAnotherTenantOrSealedByAnotherKeyDoesNotOpen() throws GeneralSecurityException {
    byte[] sealed = MARKER.seal(kek);
    String reused = PurgeMarker.path("eu-1", "acme", OTHER_UID);

    assertThatThrownBy(() -> PurgeMarker.open(sealed, kek, reused)).isInstanceOf(GeneralSecurityException.class);
    assertThatThrownBy(() -> PurgeMarker.open(sealed, otherKek, MARKER.path())).isInstanceOf(GeneralSecurityException.class);
    assertThatThrownBy(() -> PurgeMarker.open("{}".getBytes(StandardCharsets.UTF_8), kek, MARKER.path()))
        .isInstanceOf(GeneralSecurityException.class);
  }

  @Test
  void aMarkerSealedForAPathThatIsNotItsOwnDoesNotOpenThere() throws GeneralSecurityException {
    // The store's key sealed it, for the path it was read from, but it names another tenant.
    PurgeMarker other = PurgeMarker.of("eu-1", "acme", OTHER_UID, MARKER.purged());
    byte[] sealed = kek.encrypt(Json.GSON.toJson(other).getBytes(StandardCharsets.UTF_8), DataKey.ad(MARKER.path()));

    assertThatThrownBy(() -> PurgeMarker.open(sealed, kek, MARKER.path())).isInstanceOf(GeneralSecurityException.class)
        .hasMessageContaining("belongs at " + other.path());
  }
}
