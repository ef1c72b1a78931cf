package io.tenantry.controller.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRouteFilter;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tenantry.api.WellKnown;
import io.tenantry.controller.autoscaling.Autoscaling;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static net.logstash.logback.argument.StructuredArguments.kv;

/**
 * The only code that writes owned objects. It compares with the cache first and writes only a
 * real difference, by server-side apply under the operator's field manager: the write carries
 * only the fields the operator owns, so other managers' fields are never touched, and it cannot
 * lose a concurrent edit of another field (no read-modify-write).
 */
public final class Applier implements ObjectWriter {

  public static final String FIELD_MANAGER = "tenantry";
  private static final Logger LOG = LoggerFactory.getLogger(Applier.class);
  private static final ObjectMapper JSON = Serialization.jsonMapper();

  private final KubernetesClient client;
  private final Counter writes;
  private final Counter deletes;

  public Applier(KubernetesClient client, MeterRegistry registry) {
    this.client = client;
    this.writes = Counter.builder("tenantry.apply.writes").description("Owned objects written").register(registry);
    this.deletes = Counter.builder("tenantry.apply.deletes").description("Owned objects deleted").register(registry);
  }

  /**
   * Whether {@code cached} (may be null) already has every field of {@code desired}; a Service's
   * selector and an HTTPRoute's filters exactly, as a key or a filter too many (a spare's gate,
   * {@code routing.SpareGate} and {@code routing.EdgeGate}) changes what they reach.
   */
  public static boolean upToDate(HasMetadata desired, HasMetadata cached) {
    if (cached == null) {
      return false;
    }
    if (desired instanceof Service want && cached instanceof Service have && !selector(want).equals(selector(have))) {
      return false;
    }
    if (desired instanceof HTTPRoute want && cached instanceof HTTPRoute have && !filters(want).equals(filters(have))) {
      return false;
    }
    JsonNode want = JSON.valueToTree(desired);
    JsonNode have = JSON.valueToTree(cached);
    return OwnedFields.covered(want, have);
  }

  /** Each rule's filters, in order (none: empty). */
  private static List<List<HTTPRouteFilter>> filters(HTTPRoute route) {
    return route.getSpec() == null || route.getSpec().getRules() == null ? List.of()
        : route.getSpec().getRules().stream().map(r -> r.getFilters() == null ? List.<HTTPRouteFilter>of() : r.getFilters()).toList();
  }

  private static Map<String, String> selector(Service service) {
    return service.getSpec() == null || service.getSpec().getSelector() == null ? Map.of() : service.getSpec().getSelector();
  }

  /**
   * Writes {@code desired} by server-side apply (creating it when it does not exist). A namespace
   * is created by a plain create instead, which fails if the name is taken: an apply would take
   * over a namespace someone else made.
   */
  @Override
  public void write(HasMetadata desired, boolean create) {
    if (create && desired instanceof Namespace namespace) {
      createNamespace(namespace);
    } else {
      client.resource(desired).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
    }
    writes.increment();
    LOG.info("applied {} {} {} {}", kv("kind", desired.getKind()), kv("namespace", desired.getMetadata().getNamespace()),
        kv("name", desired.getMetadata().getName()), kv("created", create));
  }

  @Override
  public void handOver(HasMetadata fields) {
    client.resource(fields).fieldManager(Autoscaling.HANDOVER_MANAGER).forceConflicts().serverSideApply();
    writes.increment();
    LOG.info("handed over {} {} {}", kv("kind", fields.getKind()), kv("namespace", fields.getMetadata().getNamespace()),
        kv("name", fields.getMetadata().getName()));
  }

  private void createNamespace(Namespace namespace) {
    try {
      client.resource(namespace).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      // Taken: ours if it carries our labels for this tenant (the cache had not seen our own create yet).
      Namespace existing = client.namespaces().withName(namespace.getMetadata().getName()).get();
      Map<String, String> labels = existing == null ? null : existing.getMetadata().getLabels();
      String tenant = namespace.getMetadata().getLabels().get(WellKnown.TENANT);
      if (labels == null || !WellKnown.MANAGER.equals(labels.get(WellKnown.MANAGED_BY)) || !tenant.equals(labels.get(WellKnown.TENANT))) {
        throw new NamespaceTakenException(namespace.getMetadata().getName());
      }
      client.resource(namespace).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
    }
  }

  @Override
  public void delete(HasMetadata cached) {
    client.resource(cached).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
    deletes.increment();
    LOG.info("deleted {} {} {}", kv("kind", cached.getKind()), kv("namespace", cached.getMetadata().getNamespace()),
        kv("name", cached.getMetadata().getName()));
  }
}
