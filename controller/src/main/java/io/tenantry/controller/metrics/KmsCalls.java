package io.tenantry.controller.metrics;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.micrometer.core.instrument.MeterRegistry;
import io.tenantry.controller.metrics.StoreCalls.Outcome;
import java.util.Locale;

/**
 * Cloud KMS's calls, timed under {@code store="kms"} ({@link StoreCalls}): a gRPC interceptor on
 * the KMS client the GCS secret store is given, so each Encrypt and Decrypt (the data keys of the
 * envelope) is timed with its status, apart from the Cloud Storage call around it. Every attempt
 * counts, retries included.
 *
 * <p>The client is made before the operator's registry ({@link io.tenantry.controller.operator.Operator#wire}
 * makes it with everything else), so the registry is given later by {@link #bindTo}; the store
 * makes no KMS call before it runs.
 */
public final class KmsCalls implements ClientInterceptor {

  private volatile StoreCalls calls;

  /** From now on, records into {@code registry}. */
  public void bindTo(MeterRegistry registry) {
    calls = new StoreCalls(registry, StoreCalls.KMS);
  }

  /**
   * What a KMS status means, as the GCS store reads it: INVALID_ARGUMENT on Decrypt is a data key
   * the key refuses (corrupt), on Encrypt a key of the wrong kind; a key missing, disabled or not
   * permitted is the key unavailable; anything else that is not OK is KMS unavailable.
   */
  static Outcome outcome(String operation, Status.Code code) {
    return switch (code) {
      case OK -> Outcome.SUCCESS;
      case INVALID_ARGUMENT -> operation.equals("decrypt") ? Outcome.CORRUPT : Outcome.KEY_UNAVAILABLE;
      case NOT_FOUND, PERMISSION_DENIED, UNAUTHENTICATED, FAILED_PRECONDITION -> Outcome.KEY_UNAVAILABLE;
      default -> Outcome.UNAVAILABLE;
    };
  }

  @Override
  public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
    String bare = method.getBareMethodName() == null ? method.getFullMethodName() : method.getBareMethodName();
    String operation = bare.substring(0, 1).toLowerCase(Locale.ROOT) + bare.substring(1);
    return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<A> listener, Metadata headers) {
        long started = System.nanoTime();
        super.start(new SimpleForwardingClientCallListener<>(listener) {
          @Override
          public void onClose(Status status, Metadata trailers) {
            StoreCalls recorder = calls;
            if (recorder != null) {
              recorder.record(operation, outcome(operation, status.getCode()), System.nanoTime() - started);
            }
            super.onClose(status, trailers);
          }
        }, headers);
      }
    };
  }
}
