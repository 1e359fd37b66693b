/* newer_major_plugin.c - a plugin built for a future ABI 2.0. It answers the
 * negotiation with its own version and PB_ERR_VERSION, as the ABI asks; the
 * host must refuse it with a message naming the file and both versions. */
#include <perfbound/perfbound.h>

PB_EXPORT pb_status perfbound_plugin_negotiate(const pb_negotiate_request *request, pb_negotiate_response *response) {
  response->abi_major = 2;
  response->abi_minor = 0;
  if (request->abi_major_max < 2) {
    if (request->host != NULL && request->host->log != NULL)
      request->host->log(request->host, PB_SEVERITY_ERROR, "this plugin needs plugin ABI 2");
    return PB_ERR_VERSION;
  }
  return PB_ERR_VERSION;
}
