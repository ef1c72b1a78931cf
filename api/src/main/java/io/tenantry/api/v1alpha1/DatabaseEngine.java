package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The database engines a tenant can run. */
public enum DatabaseEngine {
  @JsonProperty("postgres")
  POSTGRES,
  @JsonProperty("mysql")
  MYSQL,
  @JsonProperty("redis")
  REDIS
}
