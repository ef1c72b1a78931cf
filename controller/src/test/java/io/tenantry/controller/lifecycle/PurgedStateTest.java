package io.tenantry.controller.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Namespace;
import io.tenantry.api.v1alpha1.TenantPhase;
import io.tenantry.api.v1alpha1.TenantState;
import io.tenantry.controller.queue.SyncResult;
import io.tenantry.secretstore.Scope;
import io.tenantry.secretstore.StoreUnavailableException;
import org.junit.jupiter.api.Test;

/** Purging: the namespace goes first, then the tenant's records outside the cluster; nothing is forgotten on failure. */
class PurgedStateTest {

  private final SyncFixture f = new SyncFixture();

  /** Syncs until the namespace is gone, as the namespace controller would finish it. */
  private void purgeNamespace() {
    f.sync("acme");
    f.sync("acme");
    f.cluster.removeOwned(f.cluster.get(Namespace.class, null, "tenant-acme"));
  }

  private void purge() {
    f.provisioned("acme");
    f.edit("acme", t -> t.getSpec().setState(TenantState.Purged));
  }

  @Test
  void theNamespaceIsDeletedOnceAndThenTheRecordsOutsideTheCluster() {
    purge();
    assertThat(f.store.list(Scope.tenant("acme"))).isNotEmpty();

    assertThat(f.sync("acme")).isEqualTo(SyncResult.done());
    assertThat(f.writes.take()).as("labelled Purged first: the deletion policy refuses deleting it otherwise")
        .containsExactly("apply Namespace tenant-acme", "status acme Purging", "event acme Normal StateChanged",
            "event acme Normal Purging");
    assertThat(f.cluster.get(Namespace.class, null, "tenant-acme").getMetadata().getLabels()).containsEntry("tenantry.io/state", "Purged");
    f.sync("acme");
    assertThat(f.writes.take()).containsExactly("delete Namespace tenant-acme");
    f.sync("acme");
    assertThat(f.writes.take()).as("a terminating namespace is not deleted again").isEmpty();

    f.cluster.removeOwned(f.cluster.get(Namespace.class, null, "tenant-acme"));
    f.sync("acme");
    assertThat(f.writes.take()).containsExactly("status acme Purged", "event acme Normal Purged");
    assertThat(f.purgedRecords).containsExactly("acme");
    assertThat(f.purgedUids).as("the Tenant's UID, which names its backups").containsExactly(
        f.cluster.tenant("acme").getMetadata().getUid()).doesNotContainNull();
    assertThat(f.store.list(Scope.tenant("acme"))).as("its stored credentials are gone").isEmpty();

    f.sync("acme");
    assertThat(f.writes.take()).as("done before: nothing to call again").isEmpty();
    assertThat(f.purgedRecords).containsExactly("acme");
  }

  @Test
  void aCleanupThatFailsIsRetriedAndTheTenantStaysPurging() {
    purge();
    purgeNamespace();
    f.cleanupFailure = new StoreUnavailableException("secret store memory: unreachable", null);
    f.writes.take();

    assertThatThrownBy(() -> f.sync("acme")).hasMessageContaining("purging the tenant's records outside the cluster failed");
    assertThat(f.cluster.tenant("acme").getStatus().getPhase()).isEqualTo(TenantPhase.Purging);
    assertThat(f.cluster.tenant("acme").getMetadata().getFinalizers()).contains(Finalizer.NAME);

    f.cleanupFailure = null;
    f.sync("acme");
    assertThat(f.cluster.tenant("acme").getStatus().getPhase()).isEqualTo(TenantPhase.Purged);
  }

  @Test
  void aNamespaceMadeForAnotherTenantOfTheSameNameIsNotDeleted() {
    purge();
    Namespace namespace = f.cluster.get(Namespace.class, null, "tenant-acme");
    namespace.getMetadata().getAnnotations().put("tenantry.io/tenant-uid", "uid-of-an-earlier-acme");
    f.cluster.putOwned(namespace);
    f.writes.take();

    f.sync("acme");
    assertThat(f.writes.take()).containsExactly("status acme Purging", "event acme Normal StateChanged",
        "event acme Normal Purging");
    assertThat(f.cluster.tenant("acme").getStatus().getConditions().get(0).getMessage())
        .contains("was made for another Tenant (uid uid-of-an-earlier-acme) and is not deleted");
    assertThat(f.purgedRecords).isEmpty();
  }

  @Test
  void aPurgedTenantDeletedReleasesItsFinalizer() {
    purge();
    purgeNamespace();
    f.sync("acme");
    f.edit("acme", t -> t.getMetadata().setDeletionTimestamp("2026-03-01T10:00:00Z"));
    f.writes.take();

    f.sync("acme");
    assertThat(f.writes.take()).containsExactly("finalizers acme []");
  }
}
