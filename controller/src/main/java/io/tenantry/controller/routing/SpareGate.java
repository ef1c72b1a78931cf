package io.tenantry.controller.routing;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.tenantry.controller.resources.AppModel;
import io.tenantry.controller.resources.Labels;
import io.tenantry.controller.resources.Names;
import io.tenantry.controller.resources.TenantContext;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Pure: how a spare's route can be in place before its customer comes and still reach nothing.
 * A spare's route to its exposed apps is written with the spare ({@link TenantRouting}), so the
 * edge has taken it long before a signup; the Services it names select no pod (their selector adds
 * {@link #LABEL}, which no pod of ours carries), so the edge has no server for the hostname and
 * answers 503, and nothing in the cluster reaches the apps by their Service either. Binding the
 * spare opens them: one Service write per exposed app, and the edge serves the customer as soon as
 * the Service's endpoints name the pod, without a route of its own to accept.
 */
public final class SpareGate {

  /** The selector key that keeps a spare's exposed Services empty: no pod has it. */
  public static final String LABEL = "tenantry.io/gate";
  static final String CLOSED = "until-bound";

  private SpareGate() {
  }

  /** {@code desired} with the Services of the tenant's exposed apps closed: selecting no pod. */
  public static List<HasMetadata> closed(TenantContext ctx, List<HasMetadata> desired) {
    Set<String> exposed = AppModel.exposed(ctx).stream().map(app -> Names.app(app.getName())).collect(Collectors.toSet());
    return desired.stream().map(o -> o instanceof Service service && exposed.contains(service.getMetadata().getName())
        ? new ServiceBuilder(service).editSpec().addToSelector(LABEL, CLOSED).endSpec().build() : o).toList();
  }

  /** The Services of the bound tenant's exposed apps, open: as its own sync writes them. */
  public static List<HasMetadata> opened(TenantContext ctx) {
    return AppModel.exposed(ctx).stream().<HasMetadata>map(app -> AppModel.service(ctx, app)).toList();
  }

  /**
   * Whether a bind writes {@code object} ahead of the tenant's sync: its route, an app's Service it
   * opens, or the identity its apps answer with.
   */
  public static boolean writtenOnBind(HasMetadata object) {
    Map<String, String> labels = object.getMetadata().getLabels();
    return RouteModel.isRoute(object)
        || object instanceof Service && labels != null && Labels.COMPONENT_APP.equals(labels.get(Labels.COMPONENT))
        || object instanceof ConfigMap && Names.IDENTITY.equals(object.getMetadata().getName());
  }
}
