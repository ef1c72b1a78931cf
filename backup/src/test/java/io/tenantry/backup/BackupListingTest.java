package io.tenantry.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.tenantry.backup.BackupListing.Entry;
import io.tenantry.backup.store.StoredObject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class BackupListingTest {

  private static final BackupLocation LOCATION =
      new BackupLocation("prod", "acme", "3f2c9a1e-77b0-4c1d-9e0a-5b6c7d8e9f01", "app");
  private static final String PREFIX = "backups/prod/acme-3f2c9a1e-77b0-4c1d-9e0a-5b6c7d8e9f01/app/";
  private static final BackupId A = BackupId.parse("app-20261124-020000-0a0a0a");
  private static final BackupId B = BackupId.parse("app-20261125-020000-0b0b0b");
  private static final BackupId C = BackupId.parse("app-20261126-020000-0c0c0c");

  private static BackupListing listing(String... paths) {
    return BackupListing.of(LOCATION, Stream.of(paths)
        .map(path -> new StoredObject(path, 42, null, Instant.parse("2026-11-26T02:00:00Z"))).toList());
  }

  @Test
  void objectsAndManifestsAreGroupedById() {
    BackupListing listing = listing(
        PREFIX + "app-20261124-020000-0a0a0a.dump.enc",
        PREFIX + "app-20261124-020000-0a0a0a.manifest",
        PREFIX + "app-20261125-020000-0b0b0b.dump.enc",
        PREFIX + "app-20261126-020000-0c0c0c.manifest");

    assertThat(listing.entries()).containsExactly(
        entry(A, new Entry(true, true)), entry(B, new Entry(true, false)), entry(C, new Entry(false, true)));
    assertThat(listing.entries().get(A).committed()).isTrue();
    assertThat(listing.entries().get(B).committed()).as("an object alone").isFalse();
    assertThat(listing.entries().get(C).committed()).as("a manifest alone").isFalse();
    assertThat(listing.unknown()).isEmpty();
    assertThat(listing.location()).isEqualTo(LOCATION);
  }

  @Test
  void theOrderOfTheListingDoesNotMatter() {
    assertThat(listing(PREFIX + "app-20261124-020000-0a0a0a.manifest", PREFIX + "app-20261124-020000-0a0a0a.dump.enc")
        .entries()).containsExactly(entry(A, new Entry(true, true)));
  }

  @Test
  void anythingElseUnderThePrefixIsUnknown() {
    List<String> others = List.of(
        PREFIX + "README",
        PREFIX + "app-20261124-020000-0a0a0a.dump",
        PREFIX + "app-20261124-020000-0a0a0a.manifest.tmp",
        PREFIX + "app-20261124-020000-0A0A0A.dump.enc",
        PREFIX + "app-20261399-020000-0a0a0a.manifest",
        PREFIX + "other-20261124-020000-0a0a0a.dump.enc",
        PREFIX + "old/app-20261124-020000-0a0a0a.dump.enc",
        PREFIX + ".dump.enc");

    BackupListing listing = listing(Stream.concat(Stream.of(PREFIX + "app-20261124-020000-0a0a0a.dump.enc"),
        others.stream()).toArray(String[]::new));

    assertThat(listing.entries()).containsExactly(entry(A, new Entry(true, false)));
    assertThat(listing.unknown()).containsExactlyElementsOf(others);
  }

  @Test
  void anObjectOutsideThePrefixIsRefused() {
    assertThatThrownBy(() -> listing("backups/prod/acme-3f2c9a1e-77b0-4c1d-9e0a-5b6c7d8e9f01/other/"
        + "other-20261124-020000-0a0a0a.dump.enc"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not under " + PREFIX);
  }

  @Test
  void anEmptyListingHasNoEntries() {
    BackupListing listing = listing();

    assertThat(listing.entries()).isEmpty();
    assertThat(listing.unknown()).isEmpty();
  }

  @Test
  void deletionRemovesTheManifestBeforeTheObject() {
    BackupListing listing = listing(
        PREFIX + "app-20261124-020000-0a0a0a.dump.enc",
        PREFIX + "app-20261124-020000-0a0a0a.manifest",
        PREFIX + "app-20261125-020000-0b0b0b.dump.enc");

    assertThat(listing.deletionOrder(A)).containsExactly(PREFIX + "app-20261124-020000-0a0a0a.manifest",
        PREFIX + "app-20261124-020000-0a0a0a.report", PREFIX + "app-20261124-020000-0a0a0a.dump.enc");
    assertThat(listing.deletionOrder(B)).as("a manifest written since the listing goes first too").containsExactly(
        PREFIX + "app-20261125-020000-0b0b0b.manifest", PREFIX + "app-20261125-020000-0b0b0b.report",
        PREFIX + "app-20261125-020000-0b0b0b.dump.enc");
  }

  @Test
  void anAgentsReportAloneIsAnUncommittedBackupNotAnUnknownFile() {
    BackupListing listing = listing(PREFIX + "app-20261124-020000-0a0a0a.report");

    assertThat(listing.unknown()).isEmpty();
    assertThat(listing.entries()).containsExactly(Map.entry(A, new BackupListing.Entry(false, false)));
    assertThat(listing.entries().get(A).committed()).isFalse();
  }

  @Test
  void onlyListedBackupsAreDeleted() {
    assertThatThrownBy(() -> listing(PREFIX + "app-20261124-020000-0a0a0a.dump.enc").deletionOrder(C))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("app-20261126-020000-0c0c0c is not in the listing");
  }

  @Test
  void theListingCannotBeChangedAfterwards() {
    BackupListing listing = listing(PREFIX + "app-20261124-020000-0a0a0a.dump.enc", PREFIX + "README");

    assertThatThrownBy(() -> listing.entries().remove(A)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> listing.unknown().clear()).isInstanceOf(UnsupportedOperationException.class);
  }
}
