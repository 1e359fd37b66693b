/* bad_descriptor_plugin.c - negotiates fine but describes itself against the
 * rules in several ways at once: an invalid id, a duplicate port, a malformed
 * schema id, a NULL run function, a default that does not parse, an input of
 * a group of alternatives that is not optional and a group on an output. The
 * host must refuse it; `perfbound plugin check` must list every violation.
 * Port `old` is described with ABI 1.0's struct_size: its one_of (which 1.0
 * did not have) must not be read, so its bad group name is not a violation.
 * Parameters `rate`, `label` and `issue` carry ABI 1.2 ranges that make no
 * sense; `old` is described with ABI 1.1's struct_size, so its range (which
 * does not parse) is not read. */
#include <stddef.h>

#include <perfbound/perfbound.h>

static pb_status c_create(const pb_node_kind *k, const pb_host *h, const char *id, const char *p, pb_node **out) {
  (void)k; (void)h; (void)id; (void)p;
  static int token;
  *out = (pb_node *)&token;
  return PB_OK;
}
static void c_destroy(pb_node *n) { (void)n; }

static const pb_port a = {sizeof(pb_port), "x", "perfbound_test.number/1", 0, "", NULL};
static const pb_port b = {sizeof(pb_port), "x", "not a schema id", 0, "", NULL};
static const pb_port c = {sizeof(pb_port), "y", "perfbound_test.number/1", 0, "", "tier"};
static const pb_port old = {offsetof(pb_port, one_of), "old", "perfbound_test.number/1", PB_PORT_OPTIONAL, "", "Not A Group!"};
static const pb_port out = {sizeof(pb_port), "out", "perfbound_test.number/1", 0, "", "tier"};
static const pb_port *const inputs[] = {&a, &b, &c, &old};
static const pb_port *const outputs[] = {&out};
static const pb_param bad_default = {sizeof(pb_param), "level", PB_PARAM_INT, 0, "{not json", NULL, "", NULL, NULL};
/* ABI 1.2 ranges that make no sense: empty, on a string, excluding the default. */
static const pb_param empty_range = {sizeof(pb_param), "rate", PB_PARAM_FLOAT, 0, "1.0", NULL, "", "2", "1"};
static const pb_param string_range = {sizeof(pb_param), "label", PB_PARAM_STRING, 0, "\"a\"", NULL, "", "0", NULL};
static const pb_param default_outside = {sizeof(pb_param), "issue", PB_PARAM_FLOAT, PB_PARAM_MIN_EXCLUSIVE, "0", NULL, "", "0", NULL};
/* Described with ABI 1.1's struct_size: its range fields must not be read. */
static const pb_param old_param = {offsetof(pb_param, minimum_json), "old", PB_PARAM_FLOAT, 0, "5", NULL, "", "x", "y"};
static const pb_param *const params[] = {&bad_default, &empty_range, &string_range, &default_outside, &old_param};
static const pb_node_kind kind = {sizeof(pb_node_kind), "Broken-Kind", "", 4, inputs, 1, outputs, 5, params,
                                  c_create, NULL, c_destroy};
static const pb_node_kind *const kinds[] = {&kind};
static const void *get_extension(const char *id) { (void)id; return NULL; }
static const pb_plugin plugin = {sizeof(pb_plugin), "Bad Id!", "Bad", "1.0", "", "", 1, kinds, NULL, NULL, get_extension};

PB_EXPORT pb_status perfbound_plugin_negotiate(const pb_negotiate_request *request, pb_negotiate_response *response) {
  (void)request;
  response->abi_major = PB_ABI_VERSION_MAJOR;
  response->abi_minor = PB_ABI_VERSION_MINOR;
  response->plugin = &plugin;
  return PB_OK;
}
