package io.tenantry.backup;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonWriter;
import java.io.IOException;
import java.time.Instant;

/** The one JSON mapping of this module: records as objects, instants as ISO-8601 text. */
public final class Json {

  public static final Gson GSON = new GsonBuilder().disableHtmlEscaping()
      .registerTypeAdapter(Instant.class, new TypeAdapter<Instant>() {
        @Override
        public void write(JsonWriter out, Instant value) throws IOException {
          if (value == null) {
            out.nullValue();
          } else {
            out.value(value.toString());
          }
        }

        @Override
        public Instant read(JsonReader in) throws IOException {
          if (in.peek() == com.google.gson.stream.JsonToken.NULL) {
            in.nextNull();
            return null;
          }
          return Instant.parse(in.nextString());
        }
      }.nullSafe())
      .create();

  private Json() {
  }
}
