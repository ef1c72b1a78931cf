package io.tenantry.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** When a pooler gives a client's server connection back: after each transaction, or when the client leaves. */
public enum PoolerMode {
  @JsonProperty("transaction")
  TRANSACTION,
  @JsonProperty("session")
  SESSION
}
