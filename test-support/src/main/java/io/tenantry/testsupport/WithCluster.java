package io.tenantry.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against a shared cluster: test methods and {@code @BeforeAll} methods may
 * take a {@link TestCluster} or a {@link io.fabric8.kubernetes.client.KubernetesClient} parameter.
 *
 * <p>Which cluster: {@code -Dtenantry.cluster} (or {@code TENANTRY_CLUSTER}) when it can serve
 * the test, else the real API server, or the simulated cluster when {@link #workloads()} is set.
 * Each kind of cluster is started once per test JVM and always stopped when the JVM's tests end,
 * whether they passed or not.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(ClusterExtension.class)
public @interface WithCluster {

  /** Whether the tests need Deployments and StatefulSets to really roll out. */
  boolean workloads() default false;
}
