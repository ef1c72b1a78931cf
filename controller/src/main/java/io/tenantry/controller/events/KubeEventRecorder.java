package io.tenantry.controller.events;

import static net.logstash.logback.argument.StructuredArguments.kv;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.tenantry.api.Timestamps;
import io.tenantry.api.v1alpha1.Tenant;
import io.tenantry.controller.status.Reason;
import java.time.Clock;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes Events on Tenants, for transitions and failures; {@code kubectl describe tenant}
 * shows them. Tenants are cluster-scoped, so their events live in the {@code default} namespace,
 * where kubectl looks for them. Recording is best effort: a failure is logged, never retried.
 */
public final class KubeEventRecorder implements EventRecorder {

  private static final Logger LOG = LoggerFactory.getLogger(KubeEventRecorder.class);

  private final KubernetesClient client;
  private final String instance;
  private final Clock clock;

  public KubeEventRecorder(KubernetesClient client, String instance, Clock clock) {
    this.client = client;
    this.instance = instance;
    this.clock = clock;
  }

  @Override
  public void record(Tenant tenant, EventType type, Reason reason, String message) {
    String now = Timestamps.now(clock);
    Event event = new EventBuilder()
        .withNewMetadata()
        .withName(tenant.getMetadata().getName() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE))
        .withNamespace("default")
        .endMetadata()
        .withNewInvolvedObject()
        .withApiVersion(tenant.getApiVersion()).withKind(tenant.getKind())
        .withName(tenant.getMetadata().getName()).withUid(tenant.getMetadata().getUid())
        .withResourceVersion(tenant.getMetadata().getResourceVersion())
        .endInvolvedObject()
        .withType(type.name()).withReason(reason.name()).withMessage(message)
        .withNewSource().withComponent("tenantry-operator").endSource()
        .withReportingComponent("tenantry.io/operator").withReportingInstance(instance)
        .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
        .build();
    try {
      client.v1().events().inNamespace("default").resource(event).create();
    } catch (RuntimeException e) {
      LOG.warn("could not record event {} {} {}", kv("tenant", tenant.getMetadata().getName()), kv("reason", reason),
          kv("error", e.getMessage()));
    }
  }
}
