package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/** A path of the tenant's hostnames that an app serves; an app without routes is not exposed. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AppRoute {

  @Required
  @Size(max = 256)
  @Pattern(Patterns.HTTP_PATH)
  @ValidationRule(value = Patterns.HTTP_PATH_NO_EMPTY_SEGMENT,
      message = "spec.apps[].routes[].pathPrefix: must not contain '//' (an empty segment)")
  @ValidationRule(value = Patterns.HTTP_PATH_NO_DOT_SEGMENT,
      message = "spec.apps[].routes[].pathPrefix: must not have a '.' or '..' segment")
  @ValidationRule(value = Patterns.HTTP_PATH_NO_ENCODED_SEPARATOR,
      message = "spec.apps[].routes[].pathPrefix: must not contain %2F, %2E or %5C (an encoded '/', '.' or backslash)")
  @JsonPropertyDescription("Requests whose path starts with this prefix (at a '/' boundary) go to the app, on every hostname of the tenant; the longest matching prefix wins. The Gateway API's path characters only, starting with /; no '//', no '.' or '..' segment, no encoded '/', '.' or backslash.")
  private String pathPrefix;

  public AppRoute() {
  }

  public AppRoute(String pathPrefix) {
    this.pathPrefix = pathPrefix;
  }

  public String getPathPrefix() {
    return pathPrefix;
  }

  public void setPathPrefix(String pathPrefix) {
    this.pathPrefix = pathPrefix;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AppRoute r && Objects.equals(pathPrefix, r.pathPrefix);
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(pathPrefix);
  }
}
