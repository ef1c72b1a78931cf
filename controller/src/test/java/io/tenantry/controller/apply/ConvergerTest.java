package io.tenantry.controller.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.tenantry.api.WellKnown;
import io.tenantry.controller.autoscaling.Autoscaling;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConvergerTest {

  private final List<String> calls = new ArrayList<>();
  /** Objects the API server refuses to write, as "Kind namespace/name". */
  private final Set<String> refused = new HashSet<>();
  private final Converger converger = new Converger(new ObjectWriter() {
    @Override
    public void write(HasMetadata desired, boolean create) {
      if (refused.contains(ObjectKey.of(desired).toString())) {
        throw new KubernetesClientException(new StatusBuilder().withCode(422)
            .withMessage(desired.getKind() + " \"" + desired.getMetadata().getName() + "\" is invalid: spec: Forbidden").build());
      }
      calls.add((create ? "create " : "apply ") + ObjectKey.of(desired));
    }

    @Override
    public void handOver(HasMetadata fields) {
      calls.add("handover " + ObjectKey.of(fields) + " replicas " + ((Deployment) fields).getSpec().getReplicas());
    }

    @Override
    public void delete(HasMetadata cached) {
      calls.add("delete " + ObjectKey.of(cached));
    }
  });

  private static Deployment deployment(String image) {
    return new DeploymentBuilder().withNewMetadata().withName("web").withNamespace("t").endMetadata()
        .withNewSpec().withReplicas(2).withNewTemplate().withNewSpec().addNewContainer().withName("web").withImage(image)
        .endContainer().endSpec().endTemplate().endSpec().build();
  }

  @Test
  void onlyWhatIsMissingOrDiffersIsWritten() {
    Deployment cached = deployment("web:1");
    cached.getMetadata().setResourceVersion("7");
    cached.getMetadata().getAnnotations().put("deployment.kubernetes.io/revision", "3"); // Another manager's field.
    HasMetadata service = new ServiceBuilder().withNewMetadata().withName("web").withNamespace("t").endMetadata().build();

    ChangePlan same = Converger.plan(List.of(deployment("web:1")), List.of(cached));
    assertThat(same.isEmpty()).isTrue();
    ChangePlan plan = Converger.plan(List.of(deployment("web:2"), service), List.of(cached));
    assertThat(plan.writes()).extracting(w -> ObjectKey.of(w.desired()).toString(), w -> w.cached() != null)
        .containsExactly(tuple("Deployment t/web", true),
            tuple("Service t/web", false));

    assertThat(converger.execute(plan, o -> false)).isEmpty();
    assertThat(calls).containsExactly("apply Deployment t/web", "create Service t/web");
  }

  @Test
  void ownedObjectsNoLongerDesiredAreDeletedButNeverTheNamespaceOrItsSecrets() {
    List<HasMetadata> owned = List.of(
        new NamespaceBuilder().withNewMetadata().withName("t").endMetadata().build(),
        new SecretBuilder().withNewMetadata().withName("db-main-credentials").withNamespace("t").endMetadata().build(),
        new SecretBuilder().withNewMetadata().withName("smtp").withNamespace("t").addToLabels(WellKnown.TEMPLATE, "copy")
            .endMetadata().build(),
        new ConfigMapBuilder().withNewMetadata().withName("leftover").withNamespace("t").endMetadata().build(),
        new ConfigMapBuilder().withNewMetadata().withName("going").withNamespace("t")
            .withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata().build());

    converger.execute(Converger.plan(List.of(), owned), o -> false);
    assertThat(calls).containsExactly("delete Secret t/smtp", "delete ConfigMap t/leftover");
  }

  @Test
  void heldWritesAreLeftForLaterAndTheRestIsWritten() {
    HasMetadata service = new ServiceBuilder().withNewMetadata().withName("web").withNamespace("t").endMetadata().build();
    ChangePlan plan = Converger.plan(List.of(service, deployment("web:1")), List.of());
    assertThat(plan.writes(o -> o instanceof Deployment)).isTrue();

    assertThat(converger.execute(plan, o -> o instanceof Deployment)).isEmpty();
    assertThat(calls).containsExactly("create Service t/web");
  }

  private static RoleBinding binding(String roleKind, String role) {
    return new RoleBindingBuilder().withNewMetadata().withName("tenant-admin").withNamespace("t").endMetadata()
        .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind(roleKind).withName(role).endRoleRef()
        .addNewSubject().withApiGroup("rbac.authorization.k8s.io").withKind("Group").withName("tenantry:t:admin").endSubject()
        .build();
  }

  @Test
  void aRoleBindingNamingAnotherRoleIsMadeAgainAndTheRoleOfEarlierVersionsGoes() {
    RoleBinding before = binding("Role", "tenant-admin");
    before.getMetadata().setResourceVersion("3");
    ChangePlan plan = Converger.plan(List.of(binding("ClusterRole", "tenantry-tenant-admin")), List.of(before));

    converger.execute(plan, o -> false);
    // The API server refuses to change a roleRef: delete, then create; the Role nothing binds any more goes too.
    assertThat(calls).containsExactly("delete RoleBinding t/tenant-admin", "create RoleBinding t/tenant-admin",
        "delete Role t/tenant-admin");
  }

  @Test
  void aRoleBindingWhoseSubjectsWereEditedIsAppliedInPlace() {
    RoleBinding edited = binding("ClusterRole", "tenantry-tenant-admin");
    edited.getSubjects().add(new SubjectBuilder().withKind("User").withName("mallory").build());

    converger.execute(Converger.plan(List.of(binding("ClusterRole", "tenantry-tenant-admin")), List.of(edited)), o -> false);
    assertThat(calls).containsExactly("apply RoleBinding t/tenant-admin");
  }

  @Test
  void aRefusedWriteIsReturnedWithTheServersMessageAndTheOthersAreStillWritten() {
    HasMetadata service = new ServiceBuilder().withNewMetadata().withName("web").withNamespace("t").endMetadata().build();
    HasMetadata settings = new ConfigMapBuilder().withNewMetadata().withName("settings").withNamespace("t").endMetadata()
        .addToData("a", "b").build();
    refused.add("Service t/web");

    List<WriteFailure> failures = converger.execute(Converger.plan(List.of(deployment("web:1"), service, settings), List.of()),
        o -> false);
    assertThat(failures).extracting(WriteFailure::toString)
        .containsExactly("Service t/web: Service \"web\" is invalid: spec: Forbidden");
    assertThat(calls).containsExactly("create Deployment t/web", "create ConfigMap t/settings");
  }

  @Test
  void anApiServerThatDoesNotAnswerStopsTheExecution() {
    Converger unreachable = new Converger(new ObjectWriter() {
      @Override
      public void write(HasMetadata desired, boolean create) {
        calls.add("create " + ObjectKey.of(desired));
        throw new KubernetesClientException("Connection refused", new ConnectException("Connection refused"));
      }

      @Override
      public void handOver(HasMetadata fields) {
        throw new AssertionError("no hand-over here");
      }

      @Override
      public void delete(HasMetadata cached) {
        calls.add("delete " + ObjectKey.of(cached));
      }
    });
    HasMetadata service = new ServiceBuilder().withNewMetadata().withName("web").withNamespace("t").endMetadata().build();

    assertThatThrownBy(() -> unreachable.execute(Converger.plan(List.of(deployment("web:1"), service), List.of()), o -> false))
        .isInstanceOf(KubernetesClientException.class).hasMessageContaining("Connection refused");
    assertThat(calls).as("no second object waits out the client's retries").containsExactly("create Deployment t/web");
  }

  @Test
  void aNamespaceThatCannotBeCreatedStopsTheExecution() {
    HasMetadata namespace = new NamespaceBuilder().withNewMetadata().withName("t").endMetadata().build();
    refused.add("Namespace t");

    assertThatThrownBy(() -> converger.execute(Converger.plan(List.of(namespace, deployment("web:1")), List.of()), o -> false))
        .isInstanceOf(KubernetesClientException.class);
    assertThat(calls).as("nothing can be written into a namespace that does not exist").isEmpty();
  }

  @Test
  void aSecretOfAnotherTypeIsMadeAgainItsTypeBeingImmutable() {
    HasMetadata recreated = new SecretBuilder().withNewMetadata().withName("db-main-binding").withNamespace("t").endMetadata()
        .withType("Opaque").addToData("host", "ZXZpbA==").build();
    HasMetadata desired = new SecretBuilder().withNewMetadata().withName("db-main-binding").withNamespace("t").endMetadata()
        .withType("servicebinding.io/postgresql").addToData("host", "ZGI=").build();

    converger.execute(Converger.plan(List.of(desired), List.of(recreated)), o -> false);
    assertThat(calls).containsExactly("delete Secret t/db-main-binding", "create Secret t/db-main-binding");
  }

  @Test
  void aStatefulSetOnAnotherVolumeIsMadeAgainAndOneWithAnotherClaimSizeKeepsItsClaims() {
    StatefulSet cached = statefulSet("data", "1Gi", "postgres:15.8");
    cached.getMetadata().setResourceVersion("4");

    converger.execute(Converger.plan(List.of(statefulSet("data-16-x", "1Gi", "postgres:16.4")), List.of(cached)), o -> false);
    assertThat(calls).as("claim templates are immutable: a major upgrade's fresh volume makes the StatefulSet again")
        .containsExactly("delete StatefulSet t/db-main", "create StatefulSet t/db-main");

    calls.clear();
    StatefulSet resized = statefulSet("data", "5Gi", "postgres:15.8");
    ChangePlan plan = Converger.plan(List.of(resized), List.of(cached));
    assertThat(plan.writes()).as("a new size applies to new databases only: the claims are kept, nothing differs").isEmpty();
  }

  private static StatefulSet statefulSet(String claim, String size, String image) {
    return new StatefulSetBuilder().withNewMetadata().withName("db-main").withNamespace("t").endMetadata().withNewSpec()
        .withReplicas(1).withNewTemplate().withNewSpec().addNewContainer().withName("postgres").withImage(image).endContainer()
        .endSpec().endTemplate().addNewVolumeClaimTemplate().withNewMetadata().withName(claim).endMetadata().withNewSpec()
        .withNewResources().addToRequests("storage", new Quantity(size)).endResources().endSpec().endVolumeClaimTemplate()
        .endSpec().build();
  }

  @Test
  void theFirstApplyLeavingReplicasToAnAutoscalerHandsThemOverAtTheirLiveValueFirstAndLaterAppliesDoNot() {
    Deployment fixed = deployment("web:1");
    fixed.getSpec().setReplicas(4);
    Deployment autoscaled = Autoscaling.leftToAutoscaler(deployment("web:1"), 2);

    converger.execute(Converger.plan(List.of(autoscaled), List.of(fixed)), o -> false);
    assertThat(calls).containsExactly("handover Deployment t/web replicas 4", "apply Deployment t/web");

    calls.clear();
    Deployment scaledByItsHpa = Autoscaling.leftToAutoscaler(deployment("web:1"), 2);
    scaledByItsHpa.getSpec().setReplicas(5);
    assertThat(Converger.plan(List.of(autoscaled), List.of(scaledByItsHpa)).isEmpty()).as("the HPA's 5 costs no write").isTrue();

    Deployment frozen = deployment("web:1");
    frozen.getSpec().setReplicas(0);
    converger.execute(Converger.plan(List.of(autoscaled), List.of(frozen)), o -> false);
    assertThat(calls).as("a thaw hands over the floor").containsExactly("handover Deployment t/web replicas 2",
        "apply Deployment t/web");
  }

  @Test
  void anAutoscalerNoLongerWantedIsDeletedBeforeItsDeploymentGetsFixedReplicas() {
    Deployment scaled = Autoscaling.leftToAutoscaler(deployment("web:1"), 2);
    scaled.getSpec().setReplicas(5);
    HasMetadata hpa = new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("web").withNamespace("t").endMetadata()
        .build();

    converger.execute(Converger.plan(List.of(deployment("web:1")), List.of(scaled, hpa)), o -> false);

    assertThat(calls).containsExactly("delete HorizontalPodAutoscaler t/web", "apply Deployment t/web");
  }
}
