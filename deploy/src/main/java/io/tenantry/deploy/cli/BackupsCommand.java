package io.tenantry.deploy.cli;

import com.google.crypto.tink.Aead;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.backup.BackupId;
import io.tenantry.backup.BackupListing;
import io.tenantry.backup.BackupLocation;
import io.tenantry.backup.Manifest;
import io.tenantry.backup.store.BackupStore;
import io.tenantry.backup.store.NoSuchObjectException;
import io.tenantry.backup.store.StoredObject;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.operator.BackupStores;
import io.tenantry.secretstore.KeyUnavailableException;
import io.tenantry.spares.fleet.FleetInputException;
import io.tenantry.spares.fleet.FleetNames;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@code backups list TENANT [--config FILE]}: the tenant's backups as the backup store holds them,
 * not as its status reports them. The store, the secret store's key and the cluster's name in the
 * paths come from the operator's configuration (FILE, else the defaults), opened as the operator
 * opens them ({@link BackupStores}); the Tenant, read from that cluster, gives its UID, which is part
 * of every path. One listing of the tenant's prefix covers every database directory in it, so the
 * backups of a database since removed from the spec show too. A committed backup's manifest is
 * opened, and so verified, for its kind, size and tables; one that does not open is shown as
 * unreadable with the reason, and the listing goes on.
 */
record BackupsCommand(String tenant, String configSource, OperatorConfig config) implements Command {

  static final String NAME = "backups";

  static BackupsCommand parse(Args args) {
    if (args.positionals().size() < 2) {
      throw new UsageException("backups: missing action (list)");
    }
    String action = args.positionals().get(1);
    if (!action.equals("list")) {
      throw new UsageException("backups: unknown action \"" + action + "\" (expected list)");
    }
    args.allowOnly("backups list", "--config");
    String tenant = args.positionals("backups list", 2, "TENANT").get(0);
    try {
      FleetNames.requireDnsLabel("TENANT", tenant);
    } catch (FleetInputException e) {
      throw new UsageException("backups list: " + e.getMessage());
    }
    String file = args.one("--config");
    OperatorConfig config;
    try {
      config = file == null ? OperatorConfig.defaults() : OperatorConfig.load(Path.of(file));
    } catch (UncheckedIOException e) {
      throw new UsageException("--config: " + (e.getCause() instanceof NoSuchFileException ? "no such file: " + file
          : "cannot read " + file + ": " + e.getCause().getMessage()));
    } catch (IllegalArgumentException e) {
      throw new UsageException("--config: " + file + ": " + e.getMessage());
    }
    return new BackupsCommand(tenant, file == null ? "the default configuration" : file, config);
  }

  @Override
  public int run(Fleet fleet, Terminal terminal) {
    String cluster = config.fleet().clusterName();
    String source = "fleet.clusterName of " + configSource;
    if (fleet.records().getCluster(cluster).isEmpty()) {
      throw new UsageException("backups list: cluster " + cluster + " (" + source + ") is not registered;"
          + " see tenantctl clusters list");
    }
    Tenant found = fleet.client(cluster).resources(Tenant.class).withName(tenant).get();
    if (found == null) {
      throw new UsageException("backups list: no tenant named " + tenant + " on cluster " + cluster + " (" + source + ")");
    }
    String uid = found.getMetadata().getUid();
    BackupStore store;
    Aead kek;
    try {
      store = BackupStores.store(config.backups());
      kek = BackupStores.kek(config.secretStore());
    } catch (KeyUnavailableException | IllegalStateException | UncheckedIOException e) {
      throw new CommandFailure("backups list: cannot open the secret store's key (secretStore of " + configSource + "): "
          + e.getMessage());
    }
    String prefix = BackupLocation.tenantPrefix(cluster, tenant, uid);
    List<StoredObject> objects = store.list(prefix);
    if (objects.isEmpty()) {
      terminal.out().println("no backups of tenant " + tenant + " in " + store.describe() + " under " + prefix);
      return 0;
    }
    SortedMap<String, List<StoredObject>> byDatabase = new TreeMap<>();
    List<String> unknown = new ArrayList<>();
    for (StoredObject object : objects) {
      String database = databaseOf(object.path(), prefix, cluster, uid);
      if (database == null) {
        unknown.add(object.path());
      } else {
        byDatabase.computeIfAbsent(database, d -> new ArrayList<>()).add(object);
      }
    }
    Table table = new Table("DATABASE", "BACKUP", "STARTED", "KIND", "BYTES", "TABLES", "ROWS", "STATE");
    byDatabase.forEach((database, listed) -> {
      BackupListing listing = BackupListing.of(new BackupLocation(cluster, tenant, uid, database), listed);
      listing.entries().forEach((id, entry) -> table.row(row(store, kek, listing, id, entry, listed)));
      unknown.addAll(listing.unknown());
    });
    table.lines().forEach(terminal.out()::println);
    if (!unknown.isEmpty()) {
      terminal.out().println();
      terminal.out().println("unknown objects under " + prefix + " (neither a backup nor its manifest; never pruned):");
      unknown.stream().sorted().forEach(path -> terminal.out().println("  " + path));
    }
    return 0;
  }

  /** The database directory an object is in, or null when it is in none (directly under the prefix, or a bad name). */
  private String databaseOf(String path, String prefix, String cluster, String uid) {
    String rest = path.substring(prefix.length());
    int slash = rest.indexOf('/');
    if (slash <= 0) {
      return null;
    }
    try {
      return new BackupLocation(cluster, tenant, uid, rest.substring(0, slash)).database();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** One backup's row: from its manifest when committed, else from the listing alone. */
  private static Object[] row(BackupStore store, Aead kek, BackupListing listing, BackupId id, BackupListing.Entry entry,
      List<StoredObject> listed) {
    String database = listing.location().database();
    String objectPath = listing.location().objectPath(id);
    Long objectBytes = listed.stream().filter(o -> o.path().equals(objectPath)).map(StoredObject::size).findFirst()
        .orElse(null);
    if (!entry.committed()) {
      return new Object[] {database, id, id.started(), null, objectBytes, null, null,
          entry.object() ? "uncommitted" : "uncommitted: a manifest without its object"};
    }
    String manifestPath = listing.location().manifestPath(id);
    try {
      Manifest manifest = Manifest.open(store.read(manifestPath), kek, manifestPath);
      Map<String, Long> tables = manifest.tables();
      return new Object[] {database, id, id.started(), manifest.kind(), manifest.objectBytes(), tables.size(),
          tables.values().stream().mapToLong(Long::longValue).sum(), "committed"};
    } catch (GeneralSecurityException | NoSuchObjectException e) {
      return new Object[] {database, id, id.started(), null, objectBytes, null, null, "unreadable: " + e.getMessage()};
    }
  }
}
