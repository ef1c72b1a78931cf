package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/** One database of a tenant: a StatefulSet with its volume, Service, PDB and credentials. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.pooler) || self.engine == 'postgres'",
    message = "spec.databases[].pooler: only a postgres database can have a pooler (PgBouncer speaks PostgreSQL's protocol alone)")
public class DatabaseSpec {

  @Required
  @Size(max = 30)
  @Pattern(Patterns.DNS_LABEL)
  @JsonPropertyDescription("Name of the database, unique within the tenant; names its StatefulSet, Service and credentials Secret (a DNS label, at most 30 characters).")
  private String name;

  @Required
  @JsonPropertyDescription("Database engine: postgres, mysql or redis. Cannot be changed once the database exists.")
  private DatabaseEngine engine;

  @Required
  @Size(max = 128)
  @Pattern(Patterns.IMAGE_TAG)
  @JsonPropertyDescription("Engine version, used as the image tag (for example 16.4).")
  private String version;

  @Default("1Gi")
  @Size(max = 32)
  @Pattern(Patterns.QUANTITY)
  @JsonPropertyDescription("Size of the database's persistent volume, as a Kubernetes quantity (for example 10Gi).")
  private String storage = "1Gi";

  @JsonPropertyDescription("true: the database holds no data worth keeping (a cache); it is never backed up and never reported stale.")
  private Boolean ephemeral;

  @Size(max = 128)
  @Pattern(Patterns.RESTORE_FROM)
  @JsonPropertyDescription("A backup to restore this database from, once per new value: 'latest' (the newest proven backup), a backup id"
      + " (status.databases[].backup.last.id, tenantctl backups list), or '<tenant>/latest' or '<tenant>/<id>' for another tenant's"
      + " backup when the operator allows cross-tenant restores. Accepted when the database is created, or while the tenant is"
      + " Frozen. The data goes into a side database, is checked against the backup's manifest, then swapped in; the previous"
      + " data is kept as <database>_before_<time> for backups.keepReplacedFor. Apps start only once condition Restored is True.")
  private String restoreFrom;

  @JsonPropertyDescription("true: a change of version to another major (PostgreSQL 16 to 17) is made as an upgrade: the apps stop,"
      + " a backup is taken, the database starts at the new version on a fresh volume, the backup is restored and checked"
      + " against its manifest, then the apps start again. The old volume is kept for backups.keepReplacedFor"
      + " (status.databases[].backup.upgrade names it). Without it, such a change is refused. A failed upgrade returns to the old volume and version; to try again,"
      + " set it to false, wait for condition MajorUpgraded to say so, and back to true.")
  private Boolean majorUpgrade;

  @JsonPropertyDescription("A PgBouncer in front of the database (postgres only): a Deployment db-<name>-pooler, its Service and"
      + " configuration Secret. The apps' binding db-<name>-binding keeps its name and path but points at the pooler;"
      + " migration and backup Jobs still reach the database directly. Absent: no pooler.")
  private PoolerSpec pooler;

  public DatabaseSpec() {
  }

  public DatabaseSpec(String name, DatabaseEngine engine, String version, String storage) {
    this.name = name;
    this.engine = engine;
    this.version = version;
    this.storage = storage;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public DatabaseEngine getEngine() {
    return engine;
  }

  public void setEngine(DatabaseEngine engine) {
    this.engine = engine;
  }

  public String getVersion() {
    return version;
  }

  public void setVersion(String version) {
    this.version = version;
  }

  public String getStorage() {
    return storage;
  }

  public void setStorage(String storage) {
    this.storage = storage;
  }

  public Boolean getEphemeral() {
    return ephemeral;
  }

  public void setEphemeral(Boolean ephemeral) {
    this.ephemeral = ephemeral;
  }

  /** Whether the database keeps data worth backing up. */
  public String getRestoreFrom() {
    return restoreFrom;
  }

  public void setRestoreFrom(String restoreFrom) {
    this.restoreFrom = restoreFrom;
  }

  public Boolean getMajorUpgrade() {
    return majorUpgrade;
  }

  public void setMajorUpgrade(Boolean majorUpgrade) {
    this.majorUpgrade = majorUpgrade;
  }

  public PoolerSpec getPooler() {
    return pooler;
  }

  public void setPooler(PoolerSpec pooler) {
    this.pooler = pooler;
  }

  public boolean keepsData() {
    return !Boolean.TRUE.equals(ephemeral);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DatabaseSpec d && Objects.equals(name, d.name) && engine == d.engine
        && Objects.equals(version, d.version) && Objects.equals(storage, d.storage) && Objects.equals(ephemeral, d.ephemeral)
        && Objects.equals(restoreFrom, d.restoreFrom) && Objects.equals(majorUpgrade, d.majorUpgrade)
        && Objects.equals(pooler, d.pooler);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, engine, version, storage, ephemeral, restoreFrom, majorUpgrade, pooler);
  }
}
