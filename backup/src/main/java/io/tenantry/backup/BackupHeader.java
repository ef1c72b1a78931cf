package io.tenantry.backup;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a backup says about itself, written encrypted at the start of the object, before the dump:
 * the engine, the server's version and each table's row count, taken in the snapshot the dump
 * reads. A restore compares its own counts with these.
 *
 * @param engine {@code postgresql}
 * @param serverVersion the server's version ({@code SHOW server_version})
 * @param tables rows per table, by {@code schema.table}
 * @param databaseBytes the database's size on disk ({@code pg_database_size}): what a restore needs room for
 */
public record BackupHeader(String engine, String serverVersion, Map<String, Long> tables, long databaseBytes) {

  public BackupHeader {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(serverVersion, "serverVersion");
    tables = java.util.Collections.unmodifiableMap(new TreeMap<>(tables));
  }
}
