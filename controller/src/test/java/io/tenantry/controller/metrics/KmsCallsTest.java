package io.tenantry.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.GrpcTransportChannel;
import com.google.api.gax.rpc.FixedTransportChannelProvider;
import com.google.api.gax.rpc.UnavailableException;
import com.google.cloud.kms.v1.DecryptRequest;
import com.google.cloud.kms.v1.DecryptResponse;
import com.google.cloud.kms.v1.EncryptRequest;
import com.google.cloud.kms.v1.EncryptResponse;
import com.google.cloud.kms.v1.KeyManagementServiceClient;
import com.google.cloud.kms.v1.KeyManagementServiceGrpc;
import com.google.cloud.kms.v1.KeyManagementServiceSettings;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tenantry.controller.metrics.StoreCalls.Outcome;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A KMS client with the interceptor, against an in-process KMS → each call timed under store="kms" with its status. */
class KmsCallsTest {

  private static final String KEY = "projects/p/locations/global/keyRings/r/cryptoKeys/k";

  /** Encrypts by echoing; refuses every Decrypt as a KMS out of reach would. */
  private static final class HalfAvailableKms extends KeyManagementServiceGrpc.KeyManagementServiceImplBase {
    @Override
    public void encrypt(EncryptRequest request, StreamObserver<EncryptResponse> response) {
      response.onNext(EncryptResponse.newBuilder().setName(request.getName()).setCiphertext(request.getPlaintext()).build());
      response.onCompleted();
    }

    @Override
    public void decrypt(DecryptRequest request, StreamObserver<DecryptResponse> response) {
      response.onError(Status.UNAVAILABLE.withDescription("switched off").asRuntimeException());
    }
  }

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final KmsCalls kmsCalls = new KmsCalls();
  private Server server;
  private ManagedChannel channel;
  private KeyManagementServiceClient client;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    server = InProcessServerBuilder.forName(name).directExecutor().addService(new HalfAvailableKms()).build().start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().intercept(kmsCalls).build();
    KeyManagementServiceSettings.Builder settings = KeyManagementServiceSettings.newBuilder()
        .setCredentialsProvider(NoCredentialsProvider.create())
        .setTransportChannelProvider(FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel)));
    settings.decryptSettings().setRetryableCodes(Set.of()); // one attempt, so one call to count
    client = KeyManagementServiceClient.create(settings.build());
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  @Test
  void eachKmsCallIsTimedWithItsStatusOnceARegistryIsBound() {
    client.encrypt(KEY, ByteString.copyFromUtf8("data key")); // before binding: not recorded
    kmsCalls.bindTo(registry);

    client.encrypt(KEY, ByteString.copyFromUtf8("data key"));
    assertThatThrownBy(() -> client.decrypt(KEY, ByteString.copyFromUtf8("wrapped"))).isInstanceOf(UnavailableException.class);

    Scrape scrape = new Scrape(registry.scrape());
    assertThat(scrape.value("tenantry_store_request_duration_seconds_count", "operation", "encrypt", "outcome", "success",
        "store", "kms")).isEqualTo(1);
    assertThat(scrape.value("tenantry_store_request_duration_seconds_count", "operation", "decrypt", "outcome", "unavailable",
        "store", "kms")).isEqualTo(1);
  }

  @Test
  void statusesReadAsTheGcsStoreReadsThem() {
    assertThat(KmsCalls.outcome("decrypt", Status.Code.INVALID_ARGUMENT)).isEqualTo(Outcome.CORRUPT);
    assertThat(KmsCalls.outcome("encrypt", Status.Code.INVALID_ARGUMENT)).isEqualTo(Outcome.KEY_UNAVAILABLE);
    assertThat(KmsCalls.outcome("decrypt", Status.Code.PERMISSION_DENIED)).isEqualTo(Outcome.KEY_UNAVAILABLE);
    assertThat(KmsCalls.outcome("decrypt", Status.Code.NOT_FOUND)).isEqualTo(Outcome.KEY_UNAVAILABLE);
    assertThat(KmsCalls.outcome("decrypt", Status.Code.DEADLINE_EXCEEDED)).isEqualTo(Outcome.UNAVAILABLE);
    assertThat(KmsCalls.outcome("encrypt", Status.Code.OK)).isEqualTo(Outcome.SUCCESS);
  }
}
