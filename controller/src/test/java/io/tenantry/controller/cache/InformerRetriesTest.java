package io.tenantry.controller.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParseException;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.ExponentialBackoffIntervalCalculator;
import io.vertx.core.http.HttpClosedException;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class InformerRetriesTest {

  private final InformerRetries retries = new InformerRetries();

  @Test
  void aConnectionClosedOrRefusedBeforeTheFirstListIsRetried() {
    // As the leader's start failed: a pooled connection the API server had just closed.
    assertThat(retries.retryAfterException(false, new CompletionException(new HttpClosedException("Connection was closed"))))
        .isTrue();
    assertThat(retries.retryAfterException(false, new KubernetesClientException("list failed", new ConnectException("refused"))))
        .isTrue();
  }

  @Test
  void anApiServerThatIsBusyOrFailingIsRetriedStartedOrNot() {
    for (int code : new int[] {408, 429, 500, 503, 504}) {
      assertThat(retries.retryAfterException(false, new KubernetesClientException("x", code, null))).as("%d", code).isTrue();
      assertThat(retries.retryAfterException(true, new KubernetesClientException("x", code, null))).as("%d", code).isTrue();
    }
  }

  @Test
  void aRefusedFirstListStopsTheStartWithItsReasonButAStartedInformerKeepsTrying() {
    KubernetesClientException forbidden = new KubernetesClientException("tenants is forbidden", 403, null);
    assertThat(retries.retryAfterException(false, forbidden)).isFalse();
    assertThat(retries.retryAfterException(false, new CompletionException(new KubernetesClientException("not found", 404, null))))
        .isFalse();
    assertThat(retries.retryAfterException(true, forbidden)).as("a permission restored later heals it").isTrue();
  }

  @Test
  void anAnswerTheClientCannotDecodeStopsTheStartButAStartedInformerKeepsTrying() {
    KubernetesClientException undecodable = new KubernetesClientException("decode", new JsonParseException(null, "bad"));
    assertThat(retries.retryAfterException(false, undecodable)).isFalse();
    assertThat(retries.retryAfterException(true, undecodable)).as("stopped, its cache would go stale unsaid").isTrue();
  }

  @Test
  void theOperatorsClientWaitsAtMostEightSecondsBetweenAnInformersAttemptsAndKeepsTheRestOfItsConfig() {
    Config given = new ConfigBuilder(Config.empty()).withMasterUrl("https://api.example:6443").withRequestRetryBackoffLimit(3).build();
    Config tuned = InformerRetries.clientConfig(given);
    // The same calculator (and cap) as fabric8's reflector and watch reconnects.
    ExponentialBackoffIntervalCalculator backoff = new ExponentialBackoffIntervalCalculator(tuned.getWatchReconnectInterval(), -1);
    assertThat(backoff.getInterval(0)).isEqualTo(250);
    assertThat(backoff.getInterval(100)).isEqualTo(8_000);
    assertThat(tuned.getMasterUrl()).isEqualTo(given.getMasterUrl());
    assertThat(tuned.getRequestRetryBackoffLimit()).isEqualTo(3);
    assertThat(given.getWatchReconnectInterval()).as("the given config is left as it is").isEqualTo(1_000);
  }
}
