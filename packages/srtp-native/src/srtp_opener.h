#ifndef COLLAB_SUITE_SRTP_OPENER_H
#define COLLAB_SUITE_SRTP_OPENER_H
#include <node_api.h>
// Adds createOpener, openRtp and openRtcp to the addon's exports.
void register_srtp_opener(napi_env env, napi_value exports);
#endif
