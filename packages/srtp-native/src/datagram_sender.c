// Sends a UDP datagram on a socket Node already owns, from its file descriptor: one system call,
// without the request object, address check and callback bookkeeping of `dgram`'s send (about a
// microsecond per datagram, which an SFU pays once per packet and subscriber).
#include <node_api.h>
#include <string.h>

#ifndef _WIN32
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "datagram_sender.h"

#define WOULD_BLOCK -1
#define FAILED -2

static napi_value throw_error(napi_env env, const char *message) {
  napi_throw_error(env, "SRTP_NATIVE", message);
  return NULL;
}

// socketAddress(ip, port) -> Buffer holding the socket address, or null when ip is not an IP literal.
static napi_value socket_address(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  char ip[64];
  size_t ip_length = 0;
  uint32_t port = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 ||
      napi_get_value_string_utf8(env, argv[0], ip, sizeof ip, &ip_length) != napi_ok ||
      napi_get_value_uint32(env, argv[1], &port) != napi_ok || port > 65535) {
    return throw_error(env, "socketAddress(ip, port) expects an address string and a port");
  }
  struct sockaddr_storage address;
  size_t address_length;
  memset(&address, 0, sizeof address);
  struct sockaddr_in *v4 = (struct sockaddr_in *)&address;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&address;
  if (inet_pton(AF_INET, ip, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    address_length = sizeof *v4;
  } else if (inet_pton(AF_INET6, ip, &v6->sin6_addr) == 1) {
    // A scoped address (fe80::1%eth0) is not parsed here: dgram sends to those.
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    address_length = sizeof *v6;
  } else {
    napi_value null_value;
    napi_get_null(env, &null_value);
    return null_value;
  }
  napi_value buffer;
  void *data;
  if (napi_create_buffer_copy(env, address_length, &address, &data, &buffer) != napi_ok) {
    return throw_error(env, "could not allocate the socket address");
  }
  return buffer;
}

// sendDatagram(fd, data, length, address) -> bytes sent, -1 when the socket would block, -2 on
// any other failure.
static napi_value send_datagram(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  int32_t fd = -1;
  uint8_t *data, *address;
  size_t data_length, address_length;
  uint32_t length = 0;
  bool is_buffer = false;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 4 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok ||
      napi_is_buffer(env, argv[1], &is_buffer) != napi_ok || !is_buffer ||
      napi_get_buffer_info(env, argv[1], (void **)&data, &data_length) != napi_ok ||
      napi_get_value_uint32(env, argv[2], &length) != napi_ok ||
      napi_is_buffer(env, argv[3], &is_buffer) != napi_ok || !is_buffer ||
      napi_get_buffer_info(env, argv[3], (void **)&address, &address_length) != napi_ok) {
    return throw_error(env, "sendDatagram(fd, data, length, address) expects a descriptor, a Buffer, a length and an address Buffer");
  }
  if (fd < 0 || length > data_length ||
      (address_length != sizeof(struct sockaddr_in) && address_length != sizeof(struct sockaddr_in6))) {
    return throw_error(env, "sendDatagram: a bad descriptor, a length past the buffer or an address of a wrong size");
  }
  ssize_t sent;
  do {
    sent = sendto(fd, data, length, MSG_DONTWAIT, (const struct sockaddr *)address, (socklen_t)address_length);
  } while (sent < 0 && errno == EINTR);
  int32_t result = (int32_t)sent;
  if (sent < 0) result = errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS ? WOULD_BLOCK : FAILED;
  napi_value value;
  napi_create_int32(env, result, &value);
  return value;
}

void register_datagram_sender(napi_env env, napi_value exports) {
  napi_value function;
  napi_create_function(env, "socketAddress", NAPI_AUTO_LENGTH, socket_address, NULL, &function);
  napi_set_named_property(env, exports, "socketAddress", function);
  napi_create_function(env, "sendDatagram", NAPI_AUTO_LENGTH, send_datagram, NULL, &function);
  napi_set_named_property(env, exports, "sendDatagram", function);
}
#else
#include "datagram_sender.h"
// Windows: no sendto on a libuv socket's descriptor here; the SFU keeps dgram's send.
void register_datagram_sender(napi_env env, napi_value exports) {
  (void)env;
  (void)exports;
}
#endif
