package io.tenantry.api.v1alpha1;

import static io.tenantry.api.v1alpha1.ApiFixtures.activeTenant;
import static io.tenantry.api.v1alpha1.ApiFixtures.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.testsupport.WithCluster;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every pair of lifecycle states, tried on a real API server: the allowed transitions are
 * stored, every forbidden one is refused with the message of the rule it breaks, and the stored
 * tenant keeps its state.
 */
@WithCluster
class LifecycleTransitionsIT {

  private static final String TERMINAL = "spec.state: Purged is terminal, a purged tenant cannot change state";
  private static final String PURGE_FROM = "spec.state: Purged is reachable only from New, Frozen or Archived";
  private static final String NO_RETURN = "spec.state: a tenant cannot return to New once it has left it";
  private static final String FROM_NEW = "spec.state: a New tenant can only become Active or Purged";
  private static final String FROM_ARCHIVED = "spec.state: an Archived tenant can only become Active (restore) or Purged";

  private static KubernetesClient client;

  @BeforeAll
  static void installCrds(KubernetesClient kubernetesClient) {
    client = kubernetesClient;
    ApiFixtures.installCrds(client);
  }

  /** The lifecycle as SPEC states it, written out pair by pair (null: allowed). */
  static Stream<Arguments> transitions() {
    return Stream.of(
        row("New", "New", null),
        row("New", "Active", null),
        row("New", "Frozen", FROM_NEW),
        row("New", "Archived", FROM_NEW),
        row("New", "Purged", null),
        row("Active", "New", NO_RETURN),
        row("Active", "Active", null),
        row("Active", "Frozen", null),
        row("Active", "Archived", null),
        row("Active", "Purged", PURGE_FROM),
        row("Frozen", "New", NO_RETURN),
        row("Frozen", "Active", null),
        row("Frozen", "Frozen", null),
        row("Frozen", "Archived", null),
        row("Frozen", "Purged", null),
        row("Archived", "New", NO_RETURN),
        row("Archived", "Active", null),
        row("Archived", "Frozen", FROM_ARCHIVED),
        row("Archived", "Archived", null),
        row("Archived", "Purged", null),
        row("Purged", "New", TERMINAL),
        row("Purged", "Active", TERMINAL),
        row("Purged", "Frozen", TERMINAL),
        row("Purged", "Archived", TERMINAL),
        row("Purged", "Purged", null));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("transitions")
  void transition(TenantState from, TenantState to, String refusal) {
    Tenant tenant = activeTenant(uniqueName(from.name().toLowerCase(Locale.ROOT) + "-" + to.name().toLowerCase(Locale.ROOT)));
    tenant.getSpec().setState(from);
    Tenant stored = client.resources(Tenant.class).resource(tenant).create();

    stored.getSpec().setState(to);
    if (refusal == null) {
      assertThat(client.resources(Tenant.class).resource(stored).update().getSpec().getState()).isEqualTo(to);
    } else {
      assertThatThrownBy(() -> client.resources(Tenant.class).resource(stored).update())
          .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
            assertThat(e.getCode()).isEqualTo(422);
            assertThat(e.getStatus().getMessage()).contains(refusal);
          });
      assertThat(client.resources(Tenant.class).withName(stored.getMetadata().getName()).get().getSpec().getState())
          .isEqualTo(from);
    }
  }

  @Test
  void aTenantWalksItsWholeLifecycle() {
    Tenant tenant = activeTenant(uniqueName("walk"));
    tenant.getSpec().setState(TenantState.New);
    tenant.getSpec().setOrganization(null);
    tenant.getSpec().setEmail(null);
    Tenant stored = client.resources(Tenant.class).resource(tenant).create();

    stored.getSpec().setOrganization("Acme Corp");
    stored.getSpec().setEmail("ops@acme.example");
    for (TenantState next : new TenantState[] {TenantState.Active, TenantState.Frozen, TenantState.Active,
        TenantState.Archived, TenantState.Active, TenantState.Frozen, TenantState.Archived, TenantState.Purged}) {
      stored.getSpec().setState(next);
      stored = client.resources(Tenant.class).resource(stored).update();
      assertThat(stored.getSpec().getState()).isEqualTo(next);
    }
  }

  private static Arguments row(String from, String to, String refusal) {
    return Arguments.of(TenantState.valueOf(from), TenantState.valueOf(to), refusal);
  }
}
