package io.tenantry.secretstore;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.GrpcTransportChannel;
import com.google.api.gax.rpc.FixedTransportChannelProvider;
import com.google.cloud.kms.v1.DecryptRequest;
import com.google.cloud.kms.v1.DecryptResponse;
import com.google.cloud.kms.v1.EncryptRequest;
import com.google.cloud.kms.v1.EncryptResponse;
import com.google.cloud.kms.v1.KeyManagementServiceClient;
import com.google.cloud.kms.v1.KeyManagementServiceGrpc;
import com.google.cloud.kms.v1.KeyManagementServiceSettings;
import com.google.crypto.tink.Aead;
import com.google.crypto.tink.KeysetHandle;
import com.google.crypto.tink.RegistryConfiguration;
import com.google.crypto.tink.aead.AeadConfig;
import com.google.crypto.tink.aead.PredefinedAeadParameters;
import com.google.protobuf.ByteString;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Cloud KMS's Encrypt and Decrypt, in process over gRPC: each key name has its own Tink AES256_GCM
 * keyset, additional authenticated data is honoured, and errors carry the status codes Cloud KMS
 * uses (NOT_FOUND for an unknown key, INVALID_ARGUMENT for a ciphertext that does not decrypt,
 * UNAVAILABLE while switched off).
 */
public final class FakeKms extends KeyManagementServiceGrpc.KeyManagementServiceImplBase implements AutoCloseable {

  private final Map<String, Aead> keys = new ConcurrentHashMap<>();
  private final AtomicInteger encryptCalls = new AtomicInteger();
  private final AtomicInteger decryptCalls = new AtomicInteger();
  private volatile boolean unavailable;
  private Server server;
  private ManagedChannel channel;
  private KeyManagementServiceClient client;

  private FakeKms() {
  }

  public static FakeKms start() throws IOException {
    FakeKms kms = new FakeKms();
    String name = InProcessServerBuilder.generateName();
    kms.server = InProcessServerBuilder.forName(name).directExecutor().addService(kms).build().start();
    kms.channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    kms.client = client(kms.channel);
    return kms;
  }

  /**
   * The same fake listening on a free port of 127.0.0.1, plaintext, for clients that are configured
   * by endpoint (the CLI's {@code --kms-endpoint}); see {@link #endpoint()}.
   */
  static FakeKms startOnLocalPort() throws IOException {
    FakeKms kms = new FakeKms();
    kms.server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
        InsecureServerCredentials.create()).addService(kms).build().start();
    kms.channel = Grpc.newChannelBuilder(kms.endpoint(), InsecureChannelCredentials.create()).build();
    kms.client = client(kms.channel);
    return kms;
  }

  /** host:port of a fake started by {@link #startOnLocalPort()}. */
  String endpoint() {
    return "127.0.0.1:" + ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }

  private static KeyManagementServiceClient client(ManagedChannel channel) throws IOException {
    KeyManagementServiceSettings.Builder settings = KeyManagementServiceSettings.newBuilder()
        .setCredentialsProvider(NoCredentialsProvider.create())
        .setTransportChannelProvider(FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel)));
    // No retries: an UNAVAILABLE answer reaches the store at once instead of after a minute of backoff.
    settings.encryptSettings().setRetryableCodes(Set.of());
    settings.decryptSettings().setRetryableCodes(Set.of());
    return KeyManagementServiceClient.create(settings.build());
  }

  /** A client of this fake; closed with it. */
  public KeyManagementServiceClient client() {
    return client;
  }

  public void addKey(String keyName) throws GeneralSecurityException {
    AeadConfig.register();
    keys.put(keyName, KeysetHandle.generateNew(PredefinedAeadParameters.AES256_GCM)
        .getPrimitive(RegistryConfiguration.get(), Aead.class));
  }

  /** While set, every call fails with UNAVAILABLE, as when Cloud KMS cannot be reached. */
  public void setUnavailable(boolean unavailable) {
    this.unavailable = unavailable;
  }

  int encryptCalls() {
    return encryptCalls.get();
  }

  int decryptCalls() {
    return decryptCalls.get();
  }

  @Override
  public void encrypt(EncryptRequest request, StreamObserver<EncryptResponse> response) {
    encryptCalls.incrementAndGet();
    Aead key = usableKey(request.getName(), response);
    if (key == null) {
      return;
    }
    try {
      byte[] ciphertext = key.encrypt(request.getPlaintext().toByteArray(),
          request.getAdditionalAuthenticatedData().toByteArray());
      response.onNext(EncryptResponse.newBuilder()
          .setName(request.getName() + "/cryptoKeyVersions/1")
          .setCiphertext(ByteString.copyFrom(ciphertext))
          .build());
      response.onCompleted();
    } catch (GeneralSecurityException e) {
      response.onError(Status.INTERNAL.withDescription("encryption failed").asRuntimeException());
    }
  }

  @Override
  public void decrypt(DecryptRequest request, StreamObserver<DecryptResponse> response) {
    decryptCalls.incrementAndGet();
    Aead key = usableKey(request.getName(), response);
    if (key == null) {
      return;
    }
    try {
      byte[] plaintext = key.decrypt(request.getCiphertext().toByteArray(),
          request.getAdditionalAuthenticatedData().toByteArray());
      response.onNext(DecryptResponse.newBuilder().setPlaintext(ByteString.copyFrom(plaintext)).build());
      response.onCompleted();
    } catch (GeneralSecurityException e) {
      response.onError(Status.INVALID_ARGUMENT.withDescription("Decryption failed: the ciphertext is invalid.")
          .asRuntimeException());
    }
  }

  private Aead usableKey(String name, StreamObserver<?> response) {
    if (unavailable) {
      response.onError(Status.UNAVAILABLE.withDescription("fake KMS switched off").asRuntimeException());
      return null;
    }
    Aead key = keys.get(name);
    if (key == null) {
      response.onError(Status.NOT_FOUND.withDescription(name + " not found.").asRuntimeException());
    }
    return key;
  }

  @Override
  public void close() throws InterruptedException {
    if (client != null) {
      client.close();
    }
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
