package io.tenantry.controller.pooling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tenantry.api.v1alpha1.PoolerMode;
import io.tenantry.api.v1alpha1.PoolerSpec;
import io.tenantry.controller.binding.ServiceBinding;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PgBouncerConfigTest {

  static final ServiceBinding SERVER = new ServiceBinding("postgresql", "db-main.tenant-acme.svc.cluster.local", 5432, "tenant",
      "s3cret\"pw", "tenant");

  @Test
  void theIniPointsTheTenantsDatabaseAtItsServiceWithThePoolOfTheSpec() {
    String ini = PgBouncerConfig.of(SERVER, new PoolerSpec(PoolerMode.TRANSACTION, 10, 100, 2), 25).ini();
    assertThat(ini).contains("[databases]\ntenant = host=db-main.tenant-acme.svc.cluster.local port=5432 dbname=tenant\n")
        .contains("\n[pgbouncer]\n")
        .contains("listen_addr = *\n", "listen_port = 5432\n", "unix_socket_dir = \n")
        .contains("auth_type = scram-sha-256\n", "auth_file = /etc/pgbouncer/userlist.txt\n")
        .contains("pool_mode = transaction\n", "default_pool_size = 10\n", "reserve_pool_size = 0\n")
        .contains("max_client_conn = 100\n", "max_db_connections = 25\n")
        .contains("ignore_startup_parameters = extra_float_digits\n", "max_prepared_statements = 200\n")
        .doesNotContain("s3cret");
  }

  @Test
  void theUserlistHoldsTheTenantsUserAndPasswordWithQuotesDoubled() {
    PgBouncerConfig config = PgBouncerConfig.of(SERVER, new PoolerSpec(), 10);
    assertThat(config.userlist()).isEqualTo("\"tenant\" \"s3cret\"\"pw\"\n");
    assertThat(config.toString()).doesNotContain("s3cret");
  }

  @Test
  void sessionModeNeedsNoPreparedStatementTracking() {
    PgBouncerConfig config = PgBouncerConfig.of(SERVER, new PoolerSpec(PoolerMode.SESSION, 5, 50, 1), 5);
    assertThat(config.ini()).contains("pool_mode = session\n").doesNotContain("max_prepared_statements");
  }

  @Test
  void forPgBouncer118OnlyTheSettingsItLacksAreDropped() {
    PgBouncerConfig config = PgBouncerConfig.of(SERVER, new PoolerSpec(), 10);
    PgBouncerConfig old = config.without(PgBouncerConfig.LACKED_BY_1_18);
    Map<String, String> expected = new LinkedHashMap<>(config.settings());
    expected.remove("max_prepared_statements");
    assertThat(PgBouncerConfig.LACKED_BY_1_18).containsExactly("max_prepared_statements");
    assertThat(old.settings()).isEqualTo(expected);
    assertThat(old.userlist()).isEqualTo(config.userlist());
  }

  @Test
  void listenAddressAndServerCanBeRewrittenWithoutTouchingTheRest() {
    PgBouncerConfig config = PgBouncerConfig.of(SERVER, new PoolerSpec(), 10)
        .with("listen_addr", "127.0.0.1").with("listen_port", "16432").withServer("127.0.0.1", 15432);
    assertThat(config.ini()).contains("tenant = host=127.0.0.1 port=15432 dbname=tenant\n")
        .contains("listen_addr = 127.0.0.1\n", "listen_port = 16432\n", "default_pool_size = 10\n");
  }

  @Test
  void aLineBreakInAValueIsRefusedRatherThanReadAsAnotherSetting() {
    ServiceBinding broken = new ServiceBinding("postgresql", "db", 5432, "tenant", "pw\nadmin_users = tenant", "tenant");
    assertThatThrownBy(() -> PgBouncerConfig.of(broken, new PoolerSpec(), 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("password").hasMessageNotContaining("admin_users");
  }
}
