package io.tenantry.controller.backup;

import com.google.crypto.tink.Aead;
import io.tenantry.backup.store.BackupStore;
import io.tenantry.backup.transfer.TransferTokens;

/**
 * What the operator backs up with: the store, the store's key (the secret store's: it wraps each
 * backup's key and seals the manifests), the tokens Jobs transfer with, where Jobs reach the
 * transfer endpoint, and this cluster's name (part of every backup's path).
 */
public record BackupRuntime(BackupStore store, Aead kek, TransferTokens tokens, String transferUrl, String cluster) {
}
