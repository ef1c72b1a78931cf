/**
 * Database backups, as the operator orchestrates them: when each is due ({@link
 * io.tenantry.controller.backup.BackupSchedule}). The bytes themselves move in Jobs of the tenant's
 * namespace (see the {@code tenantry-backup} module); the operator schedules, signs and commits.
 */
package io.tenantry.controller.backup;
