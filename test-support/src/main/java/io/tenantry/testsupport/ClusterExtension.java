package io.tenantry.testsupport;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Backs {@link WithCluster}: one cluster of each kind per test JVM, kept in the root store. */
public final class ClusterExtension implements ParameterResolver {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterExtension.class);
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
    return context.getRoot().getStore(NAMESPACE)
        .getOrComputeIfAbsent(kind, ClusterExtension::start, Shared.class).cluster;
  }

  private static Shared start(ClusterKind kind) {
    LOG.info("starting the {} cluster for this test run", kind.id());
    long started = System.nanoTime();
    TestCluster cluster = TestClusters.start(kind, "tenantry-it-" + ProcessHandle.current().pid());
    LOG.info("{} cluster ready in {} ms", kind.id(), (System.nanoTime() - started) / 1_000_000);
    return new Shared(cluster);
  }

  /**
   * Closes the cluster once: when JUnit closes the root store at the end of the run, or from a
   * shutdown hook if the JVM is stopped before that (a killed build must not leave processes behind).
   */
  private static final class Shared implements AutoCloseable {
    private final TestCluster cluster;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread hook;

    Shared(TestCluster cluster) {
      this.cluster = cluster;
      this.hook = new Thread(this::stop, "stop-" + cluster.kind().id() + "-cluster");
      Runtime.getRuntime().addShutdownHook(hook);
    }

    @Override
    public void close() {
      stop();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException alreadyShuttingDown) {
        // The hook is running or has run; nothing left to do.
      }
    }

    private void stop() {
      if (closed.compareAndSet(false, true)) {
        LOG.info("stopping the {} cluster", cluster.kind().id());
        cluster.close();
      }
    }
  }
}
