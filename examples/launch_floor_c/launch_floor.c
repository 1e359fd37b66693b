/* launch_floor.c - a chip-level launch-overhead floor, as a plugin in C99.
 *
 * Kind `launch_floor` of plugin `example.launch_floor`: a kernel cannot
 * finish before it has been launched and torn down, so
 *
 *     T >= T_launch
 *
 * whatever the kernel does. The term is chip-level: component "launch",
 * core null (docs/model.md §6), so when it binds the verdict is
 * "latency-bound", unit "launch".
 *
 * Where T_launch comes from, in this order:
 *   - the parameter `seconds` (> 0), with `source` saying where the figure
 *     comes from and `kind` what sort of figure it is (theoretical, peak =
 *     the fastest measured launch of an empty kernel, sustained = a median
 *     or a fit). Only theoretical and peak figures make the term a lower
 *     bound ("strict"); a sustained one makes it "diagnostic": it is shown
 *     beside the bound and never enters it;
 *   - otherwise the profile's calibration constant named by `constant`
 *     (cycles, divided by clock.frequency). The default is the 910B3's
 *     `mandatory_handoff_intercept`: the fitted fixed cost of a minimal MIX
 *     launch with one AIC -> AIV handoff (calibration.json, kind
 *     "sustained"), so by default the term is diagnostic;
 *   - otherwise the value is null with the reason (never 0).
 *
 * It reads and writes JSON with the few lines of C below and includes only
 * the C ABI headers: no C++, no JSON library (perfbound_add_plugin links a
 * C-only plugin to perfbound::abi alone).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfbound/perfbound.h>

#define PLUGIN_ID "example.launch_floor"
#define KIND_NAME "launch_floor"
#define MAX_DEPTH 64

/* --- A small JSON reader: find members, read numbers and strings ---------- */

static const char *skip_ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
  return p;
}

/* p at '"'; returns the character after the closing quote, or NULL. */
static const char *skip_string(const char *p) {
  for (++p; *p != '\0'; ++p) {
    if (*p == '\\') {
      if (*++p == '\0') return NULL;
    } else if (*p == '"') {
      return p + 1;
    }
  }
  return NULL;
}

/* Skips one JSON value starting at p; returns what follows it, or NULL when
 * the text is malformed or nested deeper than MAX_DEPTH. */
static const char *skip_value(const char *p, int depth) {
  p = skip_ws(p);
  if (depth > MAX_DEPTH) return NULL;
  if (*p == '"') return skip_string(p);
  if (*p == '{' || *p == '[') {
    char close = *p == '{' ? '}' : ']';
    p = skip_ws(p + 1);
    if (*p == close) return p + 1;
    for (;;) {
      if (close == '}') {
        if (*p != '"' || (p = skip_string(p)) == NULL) return NULL;
        p = skip_ws(p);
        if (*p++ != ':') return NULL;
      }
      if ((p = skip_value(p, depth + 1)) == NULL) return NULL;
      p = skip_ws(p);
      if (*p == close) return p + 1;
      if (*p++ != ',') return NULL;
      p = skip_ws(p);
    }
  }
  if (strncmp(p, "true", 4) == 0) return p + 4;
  if (strncmp(p, "false", 5) == 0) return p + 5;
  if (strncmp(p, "null", 4) == 0) return p + 4;
  if (*p == '-' || (*p >= '0' && *p <= '9')) {
    char *end = NULL;
    (void)strtod(p, &end);
    return end != p ? end : NULL;
  }
  return NULL;
}

/* The value of member `key` of the object at `obj` (key compared as written,
 * escapes included), or NULL when obj is not an object or has no such key. */
static const char *member(const char *obj, const char *key) {
  size_t len = strlen(key);
  const char *p;
  if (obj == NULL) return NULL;
  p = skip_ws(obj);
  if (*p != '{') return NULL;
  p = skip_ws(p + 1);
  while (*p == '"') {
    const char *name = p + 1, *after = skip_string(p);
    if (after == NULL) return NULL;
    p = skip_ws(after);
    if (*p++ != ':') return NULL;
    p = skip_ws(p);
    if ((size_t)(after - 1 - name) == len && strncmp(name, key, len) == 0) return p;
    if ((p = skip_value(p, 1)) == NULL) return NULL;
    p = skip_ws(p);
    if (*p != ',') return NULL;
    p = skip_ws(p + 1);
  }
  return NULL;
}

/* A JSON number at p, or 0 with *ok = 0 when p is not a number. */
static double number_at(const char *p, int *ok) {
  char *end = NULL;
  double v;
  *ok = 0;
  if (p == NULL) return 0;
  p = skip_ws(p);
  if (!(*p == '-' || (*p >= '0' && *p <= '9'))) return 0;
  v = strtod(p, &end);
  *ok = end != p;
  return v;
}

/* A copy of the JSON string at p with its escapes kept (it is re-emitted
 * into JSON as it is), or NULL when p is not a string. Caller frees. */
static char *raw_string_at(const char *p) {
  const char *end;
  char *out;
  if (p == NULL) return NULL;
  p = skip_ws(p);
  if (*p != '"' || (end = skip_string(p)) == NULL) return NULL;
  out = (char *)malloc((size_t)(end - p - 1));
  if (out == NULL) return NULL;
  memcpy(out, p + 1, (size_t)(end - p - 2));
  out[end - p - 2] = '\0';
  return out;
}

/* --- A growable text buffer for the output document ----------------------- */

typedef struct text {
  char *data;
  size_t size, capacity;
  int failed;
} text;

static void append(text *t, const char *format, ...) {
  va_list args;
  int n;
  if (t->failed) return;
  for (;;) {
    size_t room = t->capacity - t->size;
    va_start(args, format);
    n = vsnprintf(t->data != NULL ? t->data + t->size : NULL, room, format, args);
    va_end(args);
    if (n < 0) {
      t->failed = 1;
      return;
    }
    if ((size_t)n < room) {
      t->size += (size_t)n;
      return;
    }
    {
      size_t capacity = (t->capacity + (size_t)n + 1) * 2;
      char *grown = (char *)realloc(t->data, capacity);
      if (grown == NULL) {
        t->failed = 1;
        return;
      }
      t->data = grown;
      t->capacity = capacity;
    }
  }
}

/* Appends `s` as the inside of a JSON string (escaping quotes, backslashes
 * and control characters). */
static void append_escaped(text *t, const char *s) {
  for (; *s != '\0'; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      append(t, "\\%c", c);
    else if (c < 0x20)
      append(t, "\\u%04x", (unsigned)c);
    else
      append(t, "%c", c);
  }
}

/* --- The node -------------------------------------------------------------- */

typedef struct pb_node {
  char *node_id;
  double seconds;  /* 0: take the figure from the profile */
  char *source;    /* raw JSON string contents */
  char *kind;      /* theoretical | peak | sustained */
  char *constant;  /* calibration constant id, raw */
  char *tier;      /* dsl | hivm */
} launch_node;

static void node_free(launch_node *n) {
  if (n == NULL) return;
  free(n->node_id);
  free(n->source);
  free(n->kind);
  free(n->constant);
  free(n->tier);
  free(n);
}

static char *copy(const char *s) {
  size_t len = strlen(s) + 1;
  char *out = (char *)malloc(len);
  if (out != NULL) memcpy(out, s, len);
  return out;
}

static void log_error(const pb_host *host, const char *node_id, const char *what) {
  text t = {NULL, 0, 0, 0};
  append(&t, "node '%s' (" KIND_NAME "): %s", node_id, what);
  host->log(host, PB_SEVERITY_ERROR, t.failed ? what : t.data);
  free(t.data);
}

static pb_status lf_create(const pb_node_kind *kind, const pb_host *host, const char *node_id, const char *params_json,
                           pb_node **out_node) {
  launch_node *n;
  int ok = 0;
  (void)kind;
  n = (launch_node *)calloc(1, sizeof *n);
  if (n == NULL) return PB_ERR_RESOURCE;
  n->node_id = copy(node_id);
  n->seconds = number_at(member(params_json, "seconds"), &ok);
  n->source = raw_string_at(member(params_json, "source"));
  n->kind = raw_string_at(member(params_json, "kind"));
  n->constant = raw_string_at(member(params_json, "constant"));
  n->tier = raw_string_at(member(params_json, "tier"));
  if (n->node_id == NULL || n->source == NULL || n->kind == NULL || n->constant == NULL || n->tier == NULL || !ok) {
    log_error(host, node_id, "the parameters are not the declared JSON object of seconds, source, kind, constant and tier");
    node_free(n);
    return PB_ERR_INVALID_INPUT;
  }
  /* The host checks these at resolve time (ABI 1.2 range, choices); create
   * keeps its own check for older hosts and for `plugin check`. */
  if (!isfinite(n->seconds) || n->seconds < 0) {
    log_error(host, node_id, "seconds must be a finite number >= 0 (0: take the figure from the profile's calibration)");
    node_free(n);
    return PB_ERR_INVALID_INPUT;
  }
  if (strcmp(n->kind, "theoretical") != 0 && strcmp(n->kind, "peak") != 0 && strcmp(n->kind, "sustained") != 0) {
    log_error(host, node_id, "kind must be theoretical, peak or sustained");
    node_free(n);
    return PB_ERR_INVALID_INPUT;
  }
  if (strcmp(n->tier, "dsl") != 0 && strcmp(n->tier, "hivm") != 0) {
    log_error(host, node_id, "tier must be dsl or hivm");
    node_free(n);
    return PB_ERR_INVALID_INPUT;
  }
  if (n->seconds > 0 && n->source[0] == '\0') {
    log_error(host, node_id, "seconds is given without source: say where the figure comes from");
    node_free(n);
    return PB_ERR_INVALID_INPUT;
  }
  *out_node = n;
  return PB_OK;
}

static void lf_destroy(pb_node *node) { node_free(node); }

/* The "value" object of a time: a number, or null with the reason. */
static void append_seconds(text *t, int known, double seconds, const char *reason) {
  if (known) {
    append(t, "{\"value\":%.17g,\"unit\":\"s\"}", seconds);
  } else {
    append(t, "{\"value\":null,\"unit\":\"s\",\"reason\":\"");
    append_escaped(t, reason);
    append(t, "\"}");
  }
}

static pb_status lf_run(pb_node *node, const pb_run_context *ctx) {
  const pb_document *profile = ctx->input(ctx, "profile", 0);
  const char *calibration, *constant = NULL;
  double seconds = 0, cycles = 0, clock = 0;
  int known = 0, have_clock = 0, have_cycles = 0, strict;
  char *rate_kind = NULL, *unit = NULL;
  const char *reason = "";
  text t = {NULL, 0, 0, 0};
  pb_status status;

  if (profile == NULL || profile->encoding != PB_ENCODING_JSON || skip_value(profile->data, 0) == NULL ||
      *skip_ws(profile->data) != '{') {
    text msg = {NULL, 0, 0, 0};
    append(&msg, "node '%s' (" KIND_NAME "): %s%s", node->node_id, profile == NULL ? "input 'profile' is not connected" : profile->origin,
           profile == NULL ? "" : ": the profile is not a JSON object");
    ctx->log(ctx, PB_SEVERITY_ERROR, msg.failed ? "bad profile" : msg.data);
    free(msg.data);
    return PB_ERR_INVALID_INPUT;
  }
  clock = number_at(member(member(member(profile->data, "clock"), "frequency"), "value"), &have_clock);
  calibration = member(member(profile->data, "calibration"), "constants");
  if (node->constant[0] != '\0') constant = member(calibration, node->constant);
  cycles = number_at(member(constant, "value"), &have_cycles);
  unit = raw_string_at(member(constant, "unit"));

  if (node->seconds > 0) {
    seconds = node->seconds;
    known = 1;
    rate_kind = copy(node->kind);
  } else if (node->constant[0] == '\0') {
    reason = "no launch figure: set the parameter seconds (with source and kind) or name a calibration constant";
  } else if (calibration == NULL) {
    reason = "the profile has no calibration";
  } else if (!have_cycles || cycles < 0) {
    reason = "the profile's calibration has no such constant (parameter constant) with a number value";
  } else if (unit == NULL || strcmp(unit, "cycle") != 0) {
    reason = "the calibration constant is not in cycles";
  } else if (!have_clock || !(clock > 0)) {
    reason = "the profile has no clock.frequency";
  } else {
    seconds = cycles / clock;
    known = isfinite(seconds);
    reason = "the calibration constant over the clock is not a finite number";
    rate_kind = raw_string_at(member(constant, "kind"));
    if (rate_kind == NULL) rate_kind = copy("sustained"); /* unmarked measurements are sustained */
  }
  strict = known && rate_kind != NULL && (strcmp(rate_kind, "theoretical") == 0 || strcmp(rate_kind, "peak") == 0);

  append(&t, "{\"schema\":\"perfbound.bound_term/1\",\"term\":\"launch_floor\",\"tier\":\"%s\",\"role\":\"floor\",", node->tier);
  append(&t, "\"component\":\"launch\",\"core\":null,\"producer\":{\"plugin\":\"" PLUGIN_ID "\",\"kind\":\"" KIND_NAME "\",\"node\":\"");
  append_escaped(&t, ctx->node_id);
  append(&t, "\"},\"formula\":\"T >= T_launch: no kernel finishes before it has been launched and torn down\",");
  append(&t, "\"value\":");
  append_seconds(&t, known, seconds, reason);
  append(&t, ",\"strict_value\":");
  append_seconds(&t, known, strict ? seconds : 0, reason);
  append(&t, ",\"sound\":%s,\"assurance\":\"%s\",", strict ? "true" : "false", strict ? "strict" : "diagnostic");
  append(&t, "\"rates\":[{\"name\":\"launch and teardown\",\"value\":");
  if (known) append(&t, "%.17g", seconds); else append(&t, "null");
  append(&t, ",\"unit\":\"s\",\"kind\":\"%s\",\"source\":\"", rate_kind != NULL ? rate_kind : "sustained");
  if (node->seconds > 0)
    append(&t, "%s", node->source);
  else
    append(&t, "calibration:%s", node->constant);
  append(&t, "\",\"use\":\"%s\"", strict ? "bound" : "diagnostic");
  if (!known) {
    append(&t, ",\"reason\":\"");
    append_escaped(&t, reason);
    append(&t, "\"");
  }
  append(&t, "}");
  if (node->seconds <= 0 && have_clock)
    append(&t, ",{\"name\":\"clock\",\"value\":%.17g,\"unit\":\"Hz\",\"kind\":\"theoretical\",\"source\":\"profile:clock.frequency\",\"use\":\"bound\"}", clock);
  append(&t, "],\"work\":{\"launches\":1");
  if (node->seconds <= 0 && have_cycles) append(&t, ",\"cycles\":%.17g", cycles);
  append(&t, "},\"per_component\":[{\"component\":\"launch\",\"core\":null,\"value\":");
  append_seconds(&t, known, seconds, reason);
  append(&t, ",\"strict_value\":");
  append_seconds(&t, known, strict ? seconds : 0, reason);
  append(&t, ",\"assurance\":\"%s\",\"work\":{\"launches\":1},\"rate\":null}],", strict ? "strict" : "diagnostic");
  append(&t, "\"not_counted\":[{\"what\":\"the kernel's work\",\"reason\":\"this term counts only the fixed cost of one launch; "
             "the other terms count the work, and the combiner takes the larger\"}");
  if (known && !strict)
    append(&t, ",{\"what\":\"a lower bound\",\"reason\":\"the launch figure is a %s measurement, not a theoretical or fastest-launch "
               "figure, so the term is diagnostic and never enters the bound\"}",
           rate_kind != NULL ? rate_kind : "sustained");
  append(&t, "]}");

  free(rate_kind);
  free(unit);
  if (t.failed) {
    free(t.data);
    ctx->log(ctx, PB_SEVERITY_ERROR, "out of memory writing the term");
    return PB_ERR_RESOURCE;
  }
  status = ctx->set_output(ctx, "term", t.data, t.size);
  free(t.data);
  return status;
}

/* --- The descriptor ------------------------------------------------------- */

static const pb_port in_profile = {sizeof(pb_port), "profile", "perfbound.profile/1", 0,
                                   "clock.frequency and calibration.constants", NULL};
static const pb_port *const inputs[] = {&in_profile};
static const pb_port out_term = {sizeof(pb_port), "term", "perfbound.bound_term/1", 0, "the launch floor term", NULL};
static const pb_port *const outputs[] = {&out_term};

static const pb_param p_seconds = {sizeof(pb_param), "seconds", PB_PARAM_FLOAT, 0, "0", NULL,
                                   "the launch-and-teardown time in s; 0: take it from the profile's calibration constant", "0", NULL};
static const pb_param p_source = {sizeof(pb_param), "source", PB_PARAM_STRING, 0, "\"\"", NULL,
                                  "where `seconds` comes from (required with seconds)", NULL, NULL};
static const pb_param p_kind = {sizeof(pb_param), "kind", PB_PARAM_STRING, 0, "\"sustained\"",
                                "[\"theoretical\",\"peak\",\"sustained\"]",
                                "what `seconds` is: theoretical or peak (fastest empty launch) make the term a bound; sustained only "
                                "shows it", NULL, NULL};
static const pb_param p_constant = {sizeof(pb_param), "constant", PB_PARAM_STRING, 0, "\"mandatory_handoff_intercept\"", NULL,
                                    "calibration constant (cycles) used when seconds is 0; \"\" for none", NULL, NULL};
static const pb_param p_tier = {sizeof(pb_param), "tier", PB_PARAM_STRING, 0, "\"hivm\"", "[\"dsl\",\"hivm\"]",
                                "the limit the term joins", NULL, NULL};
static const pb_param *const params[] = {&p_seconds, &p_source, &p_kind, &p_constant, &p_tier};

static const pb_node_kind kind = {sizeof(pb_node_kind), KIND_NAME,
                                  "T >= the fixed cost of one launch (chip-level component 'launch')",
                                  1, inputs, 1, outputs, 5, params, lf_create, lf_run, lf_destroy};
static const pb_node_kind *const kinds[] = {&kind};

/* --- Examples for `perfbound plugin check` (perfbound.ext.examples/1) ------ */

static const pb_example_input ex_profile = {
    sizeof(pb_example_input), "profile", PB_ENCODING_JSON, "perfbound.profile/1",
    "{\"schema\":\"perfbound.profile/1\",\"name\":\"example\",\"clock\":{\"frequency\":{\"value\":1.8e9,\"unit\":\"Hz\"}},"
    "\"calibration\":{\"constants\":{\"mandatory_handoff_intercept\":{\"value\":5375,\"unit\":\"cycle\",\"kind\":\"sustained\"}}}}"};
static const pb_example_input ex_not_json = {sizeof(pb_example_input), "profile", PB_ENCODING_JSON, "perfbound.profile/1",
                                             "{\"schema\": \"perfbound.profile/1\", \"clock\": "};
static const pb_example_input *const with_profile[] = {&ex_profile};
static const pb_example_input *const with_broken_profile[] = {&ex_not_json};

#define EXAMPLE(title, params, inputs, status, at) \
  {sizeof(pb_example), KIND_NAME, title, params, 1, inputs, status, at}
static const pb_example ex_calibrated = EXAMPLE("from a calibration constant (diagnostic)", NULL, with_profile, PB_OK, PB_EXAMPLE_AT_RUN);
static const pb_example ex_given = EXAMPLE("a given fastest-launch figure (strict)",
                                           "{\"seconds\":2e-6,\"source\":\"example figure\",\"kind\":\"peak\"}", with_profile,
                                           PB_OK, PB_EXAMPLE_AT_RUN);
static const pb_example ex_negative = EXAMPLE("a negative launch time (refused at create)", "{\"seconds\":-1e-6,\"source\":\"x\"}",
                                              with_profile, PB_ERR_INVALID_INPUT, PB_EXAMPLE_AT_CREATE);
static const pb_example ex_no_source = EXAMPLE("a figure without a source (refused at create)", "{\"seconds\":2e-6}",
                                               with_profile, PB_ERR_INVALID_INPUT, PB_EXAMPLE_AT_CREATE);
static const pb_example ex_broken = EXAMPLE("a profile that is not JSON (refused at run)", NULL, with_broken_profile,
                                            PB_ERR_INVALID_INPUT, PB_EXAMPLE_AT_RUN);
static const pb_example *const examples[] = {&ex_calibrated, &ex_given, &ex_negative, &ex_no_source, &ex_broken};
static const pb_ext_examples examples_ext = {sizeof(pb_ext_examples), 5, examples};

static const void *get_extension(const char *id) {
  return strcmp(id, PB_EXT_EXAMPLES) == 0 ? (const void *)&examples_ext : NULL;
}

static const pb_plugin plugin = {sizeof(pb_plugin), PLUGIN_ID, "Launch-overhead floor (C99 example)", "0.1.0", "example",
                                 "A chip-level floor: no kernel finishes before it has been launched and torn down.",
                                 1, kinds, NULL, NULL, get_extension};

PB_EXPORT pb_status perfbound_plugin_negotiate(const pb_negotiate_request *request, pb_negotiate_response *response) {
  response->abi_major = PB_ABI_VERSION_MAJOR;
  response->abi_minor = PB_ABI_VERSION_MINOR;
  if (request->abi_major_min > PB_ABI_VERSION_MAJOR || request->abi_major_max < PB_ABI_VERSION_MAJOR) return PB_ERR_VERSION;
  response->plugin = &plugin;
  return PB_OK;
}
