package io.tenantry.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RealPostgresTest {

  private static final String PASSWORD = "p@ss:w/rd%?#&=+ ü";

  private static RealPostgres postgres;

  @BeforeAll
  static void startServer() {
    postgres = RealPostgres.start("tenant", PASSWORD, "tenant");
  }

  @AfterAll
  static void stopServer() {
    if (postgres != null) {
      postgres.close();
    }
  }

  @Test
  void aClientConnectsWithTheGeneratedCredentials() throws SQLException {
    try (Connection connection = connect(PASSWORD);
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("select current_user, current_database()")) {
      assertThat(row.next()).isTrue();
      assertThat(row.getString(1)).isEqualTo("tenant");
      assertThat(row.getString(2)).isEqualTo("tenant");
    }
  }

  @Test
  void aWrongPasswordIsRefused() {
    assertThatThrownBy(() -> connect(PASSWORD + "x").close())
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("password authentication failed");
  }

  private static Connection connect(String password) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", "tenant");
    properties.setProperty("password", password);
    String url = "jdbc:postgresql://" + postgres.host() + ":" + postgres.port() + "/tenant";
    return DriverManager.getConnection(url, properties);
  }
}
