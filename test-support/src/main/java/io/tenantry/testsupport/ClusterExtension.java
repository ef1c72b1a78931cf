package io.tenantry.testsupport;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/** Backs {@link WithCluster}: one cluster of each kind per test JVM, kept in the root store. */
public final class ClusterExtension implements ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ClusterExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == TestCluster.class || type == KubernetesClient.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    TestCluster cluster = cluster(context);
    if (parameter.getParameter().getType() == TestCluster.class) {
      return cluster;
    }
    // One client per test class, closed with the class.
    ExtensionContext classContext = context.getTestMethod().isPresent() ? context.getParent().orElseThrow() : context;
    return classContext.getStore(NAMESPACE).getOrComputeIfAbsent(KubernetesClient.class,
        k -> cluster.newClient(), KubernetesClient.class);
  }

  private static TestCluster cluster(ExtensionContext context) {
    boolean workloads = context.getTestClass()
        .flatMap(c -> AnnotationSupport.findAnnotation(c, WithCluster.class))
        .map(WithCluster::workloads)
        .orElseThrow(() -> new ParameterResolutionException("the test class is not annotated with @WithCluster"));
    String override = System.getProperty("tenantry.cluster");
    if (override == null || override.isBlank()) {
      override = System.getenv("TENANTRY_CLUSTER");
    }
    ClusterKind kind = ClusterKind.select(override, workloads);
    // Kept in the root store: shared by the run's test classes, closed by JUnit when the run ends.
    return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(kind,
        k -> TestClusters.start(k, "tenantry-it-" + ProcessHandle.current().pid()), TestCluster.class);
  }

}
