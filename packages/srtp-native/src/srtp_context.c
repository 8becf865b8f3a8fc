// Creation of the per-session contexts behind sealers and openers.
#include <stdlib.h>
#include <string.h>

#include "srtp_context.h"

napi_value srtp_throw(napi_env env, const char *message) {
  napi_throw_error(env, "SRTP_NATIVE", message);
  return NULL;
}

int srtp_read_buffer(napi_env env, napi_value value, uint8_t **data, size_t *length) {
  bool is_buffer = false;
  if (napi_is_buffer(env, value, &is_buffer) != napi_ok || !is_buffer) return 0;
  return napi_get_buffer_info(env, value, (void **)data, length) == napi_ok;
}

static void finalize_context(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  SrtpContext *context = data;
  EVP_CIPHER_CTX_free(context->cipher);
  if (context->mac != NULL) HMAC_CTX_free(context->mac);
  free(context);
}

SrtpContext *srtp_context_of(napi_env env, napi_value handle, int opening) {
  SrtpContext *context = NULL;
  if (napi_get_value_external(env, handle, (void **)&context) != napi_ok || context == NULL ||
      context->opening != opening) {
    srtp_throw(env, opening ? "the first argument must be an opener" : "the first argument must be a sealer");
    return NULL;
  }
  return context;
}

// The callback data says which: NULL for a sealer, non-NULL for an opener.
napi_value srtp_create_context(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  void *opening_flag = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, &opening_flag) != napi_ok || argc < 3) {
    return srtp_throw(env, "expected (profile, key, salt, authKey?): at least 3 arguments");
  }
  int opening = opening_flag != NULL;
  int32_t profile = 0;
  uint8_t *key, *salt, *auth_key = NULL;
  size_t key_length, salt_length, auth_key_length = 0;
  if (napi_get_value_int32(env, argv[0], &profile) != napi_ok ||
      (profile != PROFILE_AES_CM_HMAC_SHA1_80 && profile != PROFILE_AEAD_AES_128_GCM)) {
    return srtp_throw(env, "unsupported SRTP protection profile");
  }
  if (!srtp_read_buffer(env, argv[1], &key, &key_length) || key_length != 16) {
    return srtp_throw(env, "the session key must be a 16-byte Buffer");
  }
  size_t wanted_salt = profile == PROFILE_AEAD_AES_128_GCM ? 12 : 14;
  if (!srtp_read_buffer(env, argv[2], &salt, &salt_length) || salt_length < wanted_salt || salt_length > 14) {
    return srtp_throw(env, "the session salt must be a 12- or 14-byte Buffer");
  }
  if (profile == PROFILE_AES_CM_HMAC_SHA1_80 &&
      (argc < 4 || !srtp_read_buffer(env, argv[3], &auth_key, &auth_key_length) || auth_key_length == 0)) {
    return srtp_throw(env, "AES_CM_128_HMAC_SHA1_80 needs the session authentication key");
  }
  SrtpContext *context = calloc(1, sizeof(SrtpContext));
  if (context == NULL) return srtp_throw(env, "out of memory");
  context->profile = profile;
  context->opening = opening;
  memcpy(context->salt, salt, salt_length);
  context->cipher = EVP_CIPHER_CTX_new();
  int ok = context->cipher != NULL;
  if (ok && profile == PROFILE_AEAD_AES_128_GCM) {
    ok = opening ? EVP_DecryptInit_ex(context->cipher, EVP_aes_128_gcm(), NULL, key, NULL) == 1
                 : EVP_EncryptInit_ex(context->cipher, EVP_aes_128_gcm(), NULL, key, NULL) == 1;
  } else if (ok) {
    // Counter mode is its own inverse.
    ok = EVP_EncryptInit_ex(context->cipher, EVP_aes_128_ctr(), NULL, key, NULL) == 1;
    context->mac = ok ? HMAC_CTX_new() : NULL;
    ok = context->mac != NULL &&
         HMAC_Init_ex(context->mac, auth_key, (int)auth_key_length, EVP_sha1(), NULL) == 1;
  }
  if (!ok) {
    finalize_context(env, context, NULL);
    return srtp_throw(env, "OpenSSL could not set up the cipher");
  }
  napi_value external;
  if (napi_create_external(env, context, finalize_context, NULL, &external) != napi_ok) {
    finalize_context(env, context, NULL);
    return srtp_throw(env, "could not wrap the SRTP context");
  }
  return external;
}
