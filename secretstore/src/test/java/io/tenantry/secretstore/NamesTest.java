package io.tenantry.secretstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NamesTest {

  @Test
  void scopesHaveTheirFolders() {
    assertThat(Scope.template().path()).isEqualTo("template");
    assertThat(Scope.tenant("acme").path()).isEqualTo("tenants/acme");
    assertThat(Scope.tenant("acme")).isEqualTo(Scope.tenant("acme")).isNotEqualTo(Scope.tenant("globex"));
    assertThat(SecretFormat.path(Scope.tenant("acme"), "db.credentials")).isEqualTo("tenants/acme/db.credentials");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "acme", "a-1", "x23456789012345678901234567890123456789012345678901234567890123"})
  void acceptsTenantNamesThatAreDnsLabels(String name) {
    assertThat(Scope.tenant(name).path()).isEqualTo("tenants/" + name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "Acme", "1acme", "-acme", "acme-", "ac_me", "ac.me", "ac/me", "..", "acme ",
      "x234567890123456789012345678901234567890123456789012345678901234"})
  void refusesOtherTenantNamesNamingTheField(String name) {
    assertThatThrownBy(() -> Scope.tenant(name))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("tenant"))
        .hasMessageStartingWith("tenant must be a DNS label")
        .hasMessageEndingWith("\"" + name + "\"");
  }

  @Test
  void refusesANullTenant() {
    assertThatThrownBy(() -> Scope.tenant(null))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("tenant"))
        .hasMessage("tenant must not be null");
  }

  @ParameterizedTest
  @ValueSource(strings = {"db", "db-1", "db.credentials", "0db", "tls.example.com"})
  void acceptsSecretNamesThatAreDnsSubdomains(String name) {
    assertThat(Names.requireSecretName(name)).isEqualTo(name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "Db", "db_password", ".db", "db.", "a..b", "a/b", "../db", "db ", "db\n", "-db"})
  void refusesOtherSecretNamesNamingTheField(String name) {
    assertThatThrownBy(() -> Names.requireSecretName(name))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("name"))
        .hasMessageStartingWith("name must be a DNS-1123 subdomain");
  }

  @Test
  void refusesATooLongSecretName() {
    String name = "a".repeat(254);
    assertThat(Names.requireSecretName("a".repeat(253))).hasSize(253);
    assertThatThrownBy(() -> Names.requireSecretName(name))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("name"));
  }

  @Test
  void showsControlCharactersOfABadNameEscaped() {
    assertThatThrownBy(() -> Names.requireSecretName("db\n"))
        .hasMessageEndingWith("\"db\\u000a\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"password", ".dockerconfigjson", "tls.crt", "A_b-1"})
  void acceptsKubernetesDataKeys(String key) {
    assertThat(Names.requireDataKey(key)).isEqualTo(key);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", ".", "..", "..x", "a b", "a/b", "pass:word"})
  void refusesOtherDataKeysNamingTheField(String key) {
    assertThatThrownBy(() -> SecretFormat.requireValidData(Map.of(key, new byte[] {1})))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("data"))
        .hasMessageStartingWith("data key \"" + key + "\" must consist of");
  }

  @Test
  void refusesNullDataAndNullValues() {
    Map<String, byte[]> nullValue = new HashMap<>();
    nullValue.put("password", null);
    assertThatThrownBy(() -> SecretFormat.requireValidData(nullValue))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("data"))
        .hasMessage("data[\"password\"] must not be null");
    assertThatThrownBy(() -> SecretFormat.requireValidData(null))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("data"))
        .hasMessage("data must not be null");
  }
}
