package io.tenantry.controller.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.tenantry.controller.config.OperatorConfig;
import io.tenantry.controller.fakes.FakeCluster;
import org.junit.jupiter.api.Test;

/** Parameters the cache shows up to date cost no request. */
@EnableKubernetesMockClient(crud = true)
class PolicyParamsSyncTest {

  private static final OperatorConfig CONFIG = OperatorConfig.defaults().with("{routing: {reservedSubdomains: [www, api]}}");

  private KubernetesClient client;
  private KubernetesMockServer server;
  private final FakeCluster cache = new FakeCluster();

  /** What a former operator (or a hand) left in the cluster, as the cache shows it. */
  private ConfigMap existing(String reserved) {
    ConfigMap created = client.configMaps().resource(new ConfigMapBuilder(PolicyParams.desired(CONFIG))
        .addToData("reservedSubdomains", reserved).build()).create();
    cache.putOwned(created);
    return created;
  }

  @Test
  void upToDateParametersCostNoRequest() {
    existing("www,api");
    PolicyParamsSync sync = new PolicyParamsSync(client, cache, PolicyParams.desired(CONFIG));

    int requests = server.getRequestCount();
    assertThat(sync.refresh()).isFalse();
    assertThat(server.getRequestCount()).as("requests of a check with nothing to do").isEqualTo(requests);
  }

  // Writing them (created with the template namespace, a hand edit put back) is shown on a real API
  // server by ReservedSubdomainsIT: this mock server does not implement server-side apply.
}
