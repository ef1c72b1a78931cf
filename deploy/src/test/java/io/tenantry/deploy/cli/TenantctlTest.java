package io.tenantry.deploy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Command lines refused before anything is opened: no Datastore, no cluster. */
class TenantctlTest {

  /** Points at nothing: a command that got past parsing would fail with a different message and status. */
  private static final Map<String, String> ENV = Map.of("DATASTORE_EMULATOR_HOST", "localhost:1",
      "TENANTRY_DATASTORE_PROJECT", "none", "KUBECONFIG", "/nonexistent");

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "deploy --app web --version 2.0.0                                  | deploy: give exactly one of --tenants, --selector or --all",
      "deploy --app web --version 2.0.0 --all --tenants a                | deploy: give exactly one of --tenants, --selector or --all",
      "deploy --version 2.0.0 --all                                      | deploy: --app is required",
      "deploy --app web --all                                            | deploy: --version is required",
      "deploy --app Web! --version 2.0.0 --all                           | --app: must be an app name (a DNS label of at most 30 characters): Web!",
      "deploy --app web --version -bad --all                             | --version: must be an image tag",
      "deploy --app web --version 2.0.0 --all --wave-size 0              | --wave-size: must be between 1 and 1000, got 0",
      "deploy --app web --version 2.0.0 --all --wave-size ten            | --wave-size: not a whole number: \"ten\"",
      "deploy --app web --version 2.0.0 --all --max-failures 0           | --max-failures: must be at least 1, got 0",
      "deploy --app web --version 2.0.0 --all --max-failure-ratio 0      | --max-failure-ratio: must be greater than 0 and at most 1 (the share of a wave's tenants that may fail, such as 0.2), got 0",
      "deploy --app web --version 2.0.0 --all --max-failure-ratio 1.5    | --max-failure-ratio: must be greater than 0 and at most 1",
      "deploy --app web --version 2.0.0 --all --max-failure-ratio -0.2   | --max-failure-ratio: must be greater than 0 and at most 1",
      "deploy --app web --version 2.0.0 --all --max-failure-ratio 20%    | --max-failure-ratio: not a decimal number (such as 0.2): \"20%\"",
      "deploy --app web --version 2.0.0 --all --max-failure-ratio NaN    | --max-failure-ratio: not a decimal number",
      "deploy --app web --version 2.0.0 --all --max-failures 2 --max-failure-ratio 0 | --max-failure-ratio: must be greater than 0",
      "deploy --app web --version 2.0.0 --all --tenant-timeout 5y        | --tenant-timeout: not a duration",
      "deploy --app web --version 2.0.0 --tenants a,,b                   | --tenants: empty item in \"a,,b\"",
      "deploy --app web --version 2.0.0 --tenants a,a                    | --tenants: a is given twice",
      "deploy --app web --version 2.0.0 --all --clusters EU              | --clusters: not a DNS label: \"EU\"",
      "deploy --app web --version 2.0.0 --all --wave-size 5 --wave-size 6 | --wave-size given twice",
      "deploy --app web --version 2.0.0 --all --colour red               | unknown option --colour for deploy",
      "deploy --app web --version 2.0.0 --all --wave-size                | --wave-size needs a value",
      "rollout status                                                    | rollout status: missing ID",
      "rollout pause a b                                                 | rollout pause: unexpected argument \"b\"",
      "rollout rewind x                                                  | rollout: unknown action \"rewind\"",
      "rollout status ../etc                                             | rollout status: not a rollout id: \"../etc\"",
      "clusters register eu                                              | clusters register: --context is required",
      "clusters register eu --context c --label noequals                 | --label: expected KEY=VALUE, got \"noequals\"",
      "clusters                                                          | clusters: missing action",
      "get pods                                                          | get: unknown resource \"pods\"",
      "launch                                                            | unknown command \"launch\"",
      "allocate --email a@b.example --token-file t                       | allocate: --organization is required",
      "allocate --organization A --email nobody --token-file t           | --email: ",
      "allocate --organization A --email a@b.example --token-file t --pool EU | --pool: ",
      "allocate --organization A --email a@b.example --token-file t --subdomain Shop | --subdomain: ",
      "allocate --organization A --email a@b.example --token-file t --url ftp://x | --url: must be http:// or https://",
      "allocate --organization A --email a@b.example --token-file t --wait soon | --wait: not a duration",
      "backup                                                            | backup: missing TENANT",
      "backup acme globex                                                | backup: unexpected argument \"globex\"",
      "backup Acme                                                       | backup: TENANT: must be a DNS label",
      "backup acme --cluster EU                                          | backup: --cluster: must be a DNS label",
      "backup acme --database main                                       | unknown option --database for backup",
      "backup acme --wait soon                                           | --wait: not a duration",
      "backup acme --wait 0s                                             | --wait: must be longer than 0s",
      "backups                                                           | backups: missing action (list)",
      "backups show acme                                                 | backups: unknown action \"show\" (expected list)",
      "backups list                                                      | backups list: missing TENANT",
      "backups list acme --wait 1m                                       | unknown option --wait for backups list",
      "backups list acme --config /nonexistent/operator.yaml             | --config: no such file: /nonexistent/operator.yaml",
  })
  void aRefusedCommandLineNamesTheArgumentAndExitsWithTwo(String line, String message) throws Exception {
    CliRun run = CliRun.run(ENV, line.trim().split("\\s+"));
    assertThat(run.status()).as(run.err()).isEqualTo(2);
    assertThat(run.err()).startsWith("tenantctl: " + message.trim());
    assertThat(run.err()).contains("Run 'tenantctl --help' for usage.");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void helpListsEveryCommandAndTheDatastoreSettings() throws Exception {
    CliRun run = CliRun.run(ENV, "--help");
    assertThat(run.status()).isZero();
    for (String command : Tenantctl.COMMANDS.keySet()) {
      assertThat(run.out()).contains("\n  " + command + " ");
    }
    assertThat(run.out()).contains("--datastore-project", "TENANTRY_DATASTORE_PROJECT", "DATASTORE_EMULATOR_HOST",
        "--datastore-namespace", "--kubeconfig");
    // The failure flags' one rule, and the exit status of a rollout that went through with failures.
    assertThat(run.out()).contains("[--max-failure-ratio R]", "Without either flag K is 1; with only R, there is no K",
        "5 the rollout went through every");
  }

  @Test
  void anInvalidOperatorConfigurationIsRefusedBeforeAnythingIsOpened(@TempDir Path dir) throws Exception {
    Path config = Files.writeString(dir.resolve("operator.yaml"), "backups: {location: s3://bucket}\n");

    CliRun run = CliRun.run(ENV, "backups", "list", "acme", "--config", config.toString());

    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err()).startsWith("tenantctl: --config: " + config + ": invalid operator configuration: "
        + "backups.location: must be file:<directory> or gs://<bucket>");
  }

  @Test
  void withoutAProjectTheDatastoreFlagIsNamed() throws Exception {
    CliRun run = CliRun.run(Map.of(), "clusters", "list");
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err()).startsWith("tenantctl: --datastore-project: required (or set TENANTRY_DATASTORE_PROJECT)");
  }
}
