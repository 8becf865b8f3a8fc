// SRTP protection (RFC 3711 AES_CM_128_HMAC_SHA1_80, RFC 7714 AEAD_AES_128_GCM) of outgoing RTP
// packets with cipher contexts kept per session: Node's crypto module can set a new IV only on a new
// cipher object, which costs about ten times the encryption itself per packet. The OpenSSL that
// Node links provides the primitives.
#include <errno.h>
#include <node_api.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "datagram_sender.h"

#define PROFILE_AES_CM_HMAC_SHA1_80 1
#define PROFILE_AEAD_AES_128_GCM 7
#define CM_TAG_LENGTH 10
#define GCM_TAG_LENGTH 16
#define RTP_FIXED_HEADER 12

typedef struct {
  int profile;
  EVP_CIPHER_CTX *cipher;
  HMAC_CTX *mac;
  uint8_t salt[14];
} Sealer;

static void finalize_sealer(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Sealer *sealer = data;
  EVP_CIPHER_CTX_free(sealer->cipher);
  if (sealer->mac != NULL) HMAC_CTX_free(sealer->mac);
  free(sealer);
}

static napi_value throw_error(napi_env env, const char *message) {
  napi_throw_error(env, "SRTP_NATIVE", message);
  return NULL;
}

static int read_buffer(napi_env env, napi_value value, uint8_t **data, size_t *length) {
  bool is_buffer = false;
  if (napi_is_buffer(env, value, &is_buffer) != napi_ok || !is_buffer) return 0;
  return napi_get_buffer_info(env, value, (void **)data, length) == napi_ok;
}

static uint32_t read_u32(const uint8_t *bytes) {
  return ((uint32_t)bytes[0] << 24) | ((uint32_t)bytes[1] << 16) | ((uint32_t)bytes[2] << 8) | bytes[3];
}

static void write_u32(uint8_t *bytes, uint32_t value) {
  bytes[0] = value >> 24;
  bytes[1] = value >> 16;
  bytes[2] = value >> 8;
  bytes[3] = value;
}

// createSealer(profile, sessionKey, sessionSalt, sessionAuthKey?) -> external
static napi_value create_sealer(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3) {
    return throw_error(env, "createSealer(profile, key, salt, authKey?) expects at least 3 arguments");
  }
  int32_t profile = 0;
  uint8_t *key, *salt, *auth_key = NULL;
  size_t key_length, salt_length, auth_key_length = 0;
  if (napi_get_value_int32(env, argv[0], &profile) != napi_ok ||
      (profile != PROFILE_AES_CM_HMAC_SHA1_80 && profile != PROFILE_AEAD_AES_128_GCM)) {
    return throw_error(env, "unsupported SRTP protection profile");
  }
  if (!read_buffer(env, argv[1], &key, &key_length) || key_length != 16) {
    return throw_error(env, "the session key must be a 16-byte Buffer");
  }
  size_t wanted_salt = profile == PROFILE_AEAD_AES_128_GCM ? 12 : 14;
  if (!read_buffer(env, argv[2], &salt, &salt_length) || salt_length < wanted_salt || salt_length > 14) {
    return throw_error(env, "the session salt must be a 12- or 14-byte Buffer");
  }
  if (profile == PROFILE_AES_CM_HMAC_SHA1_80 &&
      (argc < 4 || !read_buffer(env, argv[3], &auth_key, &auth_key_length) || auth_key_length == 0)) {
    return throw_error(env, "AES_CM_128_HMAC_SHA1_80 needs the session authentication key");
  }
  Sealer *sealer = calloc(1, sizeof(Sealer));
  if (sealer == NULL) return throw_error(env, "out of memory");
  sealer->profile = profile;
  memcpy(sealer->salt, salt, salt_length);
  sealer->cipher = EVP_CIPHER_CTX_new();
  const EVP_CIPHER *algorithm = profile == PROFILE_AEAD_AES_128_GCM ? EVP_aes_128_gcm() : EVP_aes_128_ctr();
  int ok = sealer->cipher != NULL && EVP_EncryptInit_ex(sealer->cipher, algorithm, NULL, key, NULL) == 1;
  if (ok && profile == PROFILE_AES_CM_HMAC_SHA1_80) {
    sealer->mac = HMAC_CTX_new();
    ok = sealer->mac != NULL && HMAC_Init_ex(sealer->mac, auth_key, (int)auth_key_length, EVP_sha1(), NULL) == 1;
  }
  if (!ok) {
    finalize_sealer(env, sealer, NULL);
    return throw_error(env, "OpenSSL could not set up the cipher");
  }
  napi_value external;
  if (napi_create_external(env, sealer, finalize_sealer, NULL, &external) != napi_ok) {
    finalize_sealer(env, sealer, NULL);
    return throw_error(env, "could not wrap the sealer");
  }
  return external;
}

// seal(sealer, packet, headerLength, payload, rolloverCounter) -> packet length
// packet holds the RTP header and room for the payload and the tag; payload (another Buffer) is
// encrypted into it after the header.
static napi_value seal(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5) {
    return throw_error(env, "seal(sealer, packet, headerLength, payload, rolloverCounter) expects 5 arguments");
  }
  Sealer *sealer = NULL;
  uint8_t *packet, *plaintext;
  size_t packet_length, plaintext_length;
  uint32_t header_length, payload_length, rollover_counter;
  if (napi_get_value_external(env, argv[0], (void **)&sealer) != napi_ok || sealer == NULL) {
    return throw_error(env, "the first argument must be a sealer");
  }
  if (!read_buffer(env, argv[1], &packet, &packet_length) ||
      napi_get_value_uint32(env, argv[2], &header_length) != napi_ok ||
      !read_buffer(env, argv[3], &plaintext, &plaintext_length) ||
      napi_get_value_uint32(env, argv[4], &rollover_counter) != napi_ok) {
    return throw_error(env, "seal expects a packet Buffer, a header length, a payload Buffer and a rollover counter");
  }
  if (plaintext_length > UINT32_MAX / 2) return throw_error(env, "the payload is too large");
  payload_length = (uint32_t)plaintext_length;
  size_t tag_length = sealer->profile == PROFILE_AEAD_AES_128_GCM ? GCM_TAG_LENGTH : CM_TAG_LENGTH;
  if (header_length < RTP_FIXED_HEADER || (size_t)header_length + payload_length + tag_length > packet_length) {
    return throw_error(env, "the packet is too short for its header, payload and tag");
  }
  uint8_t *payload = packet + header_length;
  uint32_t sequence_number = ((uint32_t)packet[2] << 8) | packet[3];
  uint32_t ssrc = read_u32(packet + 8);
  uint8_t iv[16] = {0};
  int written = 0;
  int ok;
  if (sealer->profile == PROFILE_AEAD_AES_128_GCM) {
    // RFC 7714 section 8.1: 00 00 || SSRC || ROC || SEQ, exclusive-or the 12-byte salt.
    write_u32(iv + 2, ssrc);
    write_u32(iv + 6, rollover_counter);
    iv[10] = sequence_number >> 8;
    iv[11] = sequence_number;
    for (int i = 0; i < 12; i++) iv[i] ^= sealer->salt[i];
    ok = EVP_EncryptInit_ex(sealer->cipher, NULL, NULL, NULL, iv) == 1 &&
         EVP_EncryptUpdate(sealer->cipher, NULL, &written, packet, (int)header_length) == 1 &&
         EVP_EncryptUpdate(sealer->cipher, payload, &written, plaintext, (int)payload_length) == 1 &&
         EVP_EncryptFinal_ex(sealer->cipher, payload + written, &written) == 1 &&
         EVP_CIPHER_CTX_ctrl(sealer->cipher, EVP_CTRL_GCM_GET_TAG, GCM_TAG_LENGTH, payload + payload_length) == 1;
  } else {
    // RFC 3711 section 4.1.1: (SSRC << 64 | index << 16) exclusive-or (salt << 16).
    write_u32(iv + 4, ssrc);
    write_u32(iv + 8, rollover_counter);
    iv[12] = sequence_number >> 8;
    iv[13] = sequence_number;
    for (int i = 0; i < 14; i++) iv[i] ^= sealer->salt[i];
    uint8_t roc[4];
    uint8_t digest[EVP_MAX_MD_SIZE];
    unsigned int digest_length = 0;
    write_u32(roc, rollover_counter);
    ok = EVP_EncryptInit_ex(sealer->cipher, NULL, NULL, NULL, iv) == 1 &&
         EVP_EncryptUpdate(sealer->cipher, payload, &written, plaintext, (int)payload_length) == 1 &&
         HMAC_Init_ex(sealer->mac, NULL, 0, NULL, NULL) == 1 &&
         HMAC_Update(sealer->mac, packet, (size_t)header_length + payload_length) == 1 &&
         HMAC_Update(sealer->mac, roc, sizeof roc) == 1 &&
         HMAC_Final(sealer->mac, digest, &digest_length) == 1;
    if (ok) memcpy(payload + payload_length, digest, CM_TAG_LENGTH);
  }
  if (!ok) return throw_error(env, "OpenSSL could not encrypt the packet");
  napi_value result;
  napi_create_uint32(env, header_length + payload_length + (uint32_t)tag_length, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value function;
  napi_create_function(env, "createSealer", NAPI_AUTO_LENGTH, create_sealer, NULL, &function);
  napi_set_named_property(env, exports, "createSealer", function);
  napi_create_function(env, "seal", NAPI_AUTO_LENGTH, seal, NULL, &function);
  napi_set_named_property(env, exports, "seal", function);
  register_datagram_sender(env, exports);
  return exports;
}
