// What the SRTP sealer and opener share: a session's cipher and MAC contexts, and byte helpers.
#ifndef COLLAB_SUITE_SRTP_CONTEXT_H
#define COLLAB_SUITE_SRTP_CONTEXT_H
#include <node_api.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdint.h>

#define PROFILE_AES_CM_HMAC_SHA1_80 1
#define PROFILE_AEAD_AES_128_GCM 7
#define CM_TAG_LENGTH 10
#define GCM_TAG_LENGTH 16
#define RTP_FIXED_HEADER 12
#define RTCP_FIXED_HEADER 8
#define SRTCP_INDEX_LENGTH 4

// One direction of one SRTP or SRTCP session: protecting (sealer) or unprotecting (opener).
typedef struct {
  int profile;
  int opening;
  EVP_CIPHER_CTX *cipher;
  HMAC_CTX *mac;
  uint8_t salt[14];
} SrtpContext;

napi_value srtp_throw(napi_env env, const char *message);
int srtp_read_buffer(napi_env env, napi_value value, uint8_t **data, size_t *length);
// The context behind a sealer or opener handle, or NULL (an exception is then pending).
SrtpContext *srtp_context_of(napi_env env, napi_value handle, int opening);
// createSealer / createOpener(profile, sessionKey, sessionSalt, sessionAuthKey?) -> handle
napi_value srtp_create_context(napi_env env, napi_callback_info info);

static inline uint32_t read_u32(const uint8_t *bytes) {
  return ((uint32_t)bytes[0] << 24) | ((uint32_t)bytes[1] << 16) | ((uint32_t)bytes[2] << 8) | bytes[3];
}

static inline void write_u32(uint8_t *bytes, uint32_t value) {
  bytes[0] = value >> 24;
  bytes[1] = value >> 16;
  bytes[2] = value >> 8;
  bytes[3] = value;
}

// RFC 3711 section 4.1.1 counter: (SSRC << 64 | index << 16) exclusive-or (salt << 16), where the
// 48-bit index is the rollover counter and sequence number (SRTP) or the SRTCP index.
static inline void counter_mode_iv(uint8_t iv[16], const uint8_t salt[14], uint32_t ssrc, uint32_t high, uint32_t low16) {
  for (int i = 0; i < 16; i++) iv[i] = 0;
  write_u32(iv + 4, ssrc);
  write_u32(iv + 8, high);
  iv[12] = low16 >> 8;
  iv[13] = low16;
  for (int i = 0; i < 14; i++) iv[i] ^= salt[i];
}

// RFC 7714 section 8.1 (SRTP: 00 00 || SSRC || ROC || SEQ) and 9.1 (SRTCP: 00 00 || SSRC || 00 00 ||
// index), exclusive-or the 12-byte salt.
static inline void gcm_iv(uint8_t iv[12], const uint8_t salt[14], uint32_t ssrc, uint32_t middle, uint32_t last16) {
  for (int i = 0; i < 12; i++) iv[i] = 0;
  write_u32(iv + 2, ssrc);
  write_u32(iv + 6, middle);
  iv[10] = last16 >> 8;
  iv[11] = last16;
  for (int i = 0; i < 12; i++) iv[i] ^= salt[i];
}

#endif
