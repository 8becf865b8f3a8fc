#ifndef COLLAB_SUITE_DATAGRAM_SENDER_H
#define COLLAB_SUITE_DATAGRAM_SENDER_H
#include <node_api.h>
// Adds socketAddress and sendDatagram to the addon's exports (nothing on Windows).
void register_datagram_sender(napi_env env, napi_value exports);
#endif
