// SRTP and SRTCP unprotection (authentication, then decryption) of incoming packets with cipher and
// MAC contexts kept per session. A packet that does not authenticate yields -1 and nothing of it is
// to be used; tags are compared in constant time.
#include <openssl/crypto.h>
#include <string.h>

#include "srtp_context.h"
#include "srtp_opener.h"

#define NOT_AUTHENTIC -1

static napi_value int_result(napi_env env, int32_t value) {
  napi_value result;
  napi_create_int32(env, value, &result);
  return result;
}

// HMAC-SHA1 of data || suffix (suffix may be empty), truncated to 80 bits, against tag.
static int counter_mode_authentic(SrtpContext *context, const uint8_t *data, size_t length,
                                  const uint8_t *suffix, size_t suffix_length, const uint8_t *tag) {
  uint8_t digest[EVP_MAX_MD_SIZE];
  unsigned int digest_length = 0;
  int ok = HMAC_Init_ex(context->mac, NULL, 0, NULL, NULL) == 1 && HMAC_Update(context->mac, data, length) == 1 &&
           (suffix_length == 0 || HMAC_Update(context->mac, suffix, suffix_length) == 1) &&
           HMAC_Final(context->mac, digest, &digest_length) == 1 && digest_length >= CM_TAG_LENGTH;
  return ok && CRYPTO_memcmp(digest, tag, CM_TAG_LENGTH) == 0;
}

// GCM: aad (one or two parts), then ciphertext into plaintext, then the tag. 1 when authentic.
static int gcm_open(SrtpContext *context, const uint8_t iv[12], const uint8_t *aad, size_t aad_length,
                    const uint8_t *aad_tail, size_t aad_tail_length, const uint8_t *ciphertext,
                    size_t ciphertext_length, uint8_t *plaintext, const uint8_t *tag) {
  int written = 0;
  uint8_t tag_copy[GCM_TAG_LENGTH];
  memcpy(tag_copy, tag, GCM_TAG_LENGTH);
  int ok = EVP_DecryptInit_ex(context->cipher, NULL, NULL, NULL, iv) == 1 &&
           EVP_DecryptUpdate(context->cipher, NULL, &written, aad, (int)aad_length) == 1 &&
           (aad_tail_length == 0 ||
            EVP_DecryptUpdate(context->cipher, NULL, &written, aad_tail, (int)aad_tail_length) == 1) &&
           (ciphertext_length == 0 ||
            EVP_DecryptUpdate(context->cipher, plaintext, &written, ciphertext, (int)ciphertext_length) == 1) &&
           EVP_CIPHER_CTX_ctrl(context->cipher, EVP_CTRL_GCM_SET_TAG, GCM_TAG_LENGTH, tag_copy) == 1;
  if (!ok) return 0;
  int final_written = 0;
  return EVP_DecryptFinal_ex(context->cipher, plaintext + (ciphertext_length == 0 ? 0 : written), &final_written) == 1;
}

static int counter_mode_decrypt(SrtpContext *context, const uint8_t iv[16], const uint8_t *in, size_t length,
                                uint8_t *out) {
  int written = 0;
  return length == 0 || (EVP_EncryptInit_ex(context->cipher, NULL, NULL, NULL, iv) == 1 &&
                         EVP_EncryptUpdate(context->cipher, out, &written, in, (int)length) == 1);
}

// openRtp(opener, input, headerLength, rolloverCounter, output) -> length written to output (header
// and payload, the tag removed), or -1 when the packet does not authenticate.
static napi_value open_rtp(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5) {
    return srtp_throw(env, "openRtp(opener, input, headerLength, rolloverCounter, output) expects 5 arguments");
  }
  SrtpContext *opener = srtp_context_of(env, argv[0], 1);
  if (opener == NULL) return NULL;
  uint8_t *input, *output;
  size_t input_length, output_length;
  uint32_t header_length, rollover_counter;
  if (!srtp_read_buffer(env, argv[1], &input, &input_length) ||
      napi_get_value_uint32(env, argv[2], &header_length) != napi_ok ||
      napi_get_value_uint32(env, argv[3], &rollover_counter) != napi_ok ||
      !srtp_read_buffer(env, argv[4], &output, &output_length)) {
    return srtp_throw(env, "openRtp expects an input Buffer, a header length, a rollover counter and an output Buffer");
  }
  if (input_length > INT32_MAX) return srtp_throw(env, "the packet is too large");
  size_t tag_length = opener->profile == PROFILE_AEAD_AES_128_GCM ? GCM_TAG_LENGTH : CM_TAG_LENGTH;
  // Too short for what its header says: not a packet of this session.
  if (header_length < RTP_FIXED_HEADER || (size_t)header_length + tag_length > input_length) {
    return int_result(env, NOT_AUTHENTIC);
  }
  size_t payload_length = input_length - header_length - tag_length;
  if (output_length < header_length + payload_length) {
    return srtp_throw(env, "the output is too short for the header and payload");
  }
  uint32_t sequence_number = ((uint32_t)input[2] << 8) | input[3];
  uint32_t ssrc = read_u32(input + 8);
  const uint8_t *tag = input + input_length - tag_length;
  int ok;
  if (opener->profile == PROFILE_AEAD_AES_128_GCM) {
    uint8_t iv[12];
    gcm_iv(iv, opener->salt, ssrc, rollover_counter, sequence_number);
    ok = gcm_open(opener, iv, input, header_length, NULL, 0, input + header_length, payload_length,
                  output + header_length, tag);
  } else {
    uint8_t roc[4];
    uint8_t iv[16];
    write_u32(roc, rollover_counter);
    counter_mode_iv(iv, opener->salt, ssrc, rollover_counter, sequence_number);
    ok = counter_mode_authentic(opener, input, header_length + payload_length, roc, sizeof roc, tag) &&
         counter_mode_decrypt(opener, iv, input + header_length, payload_length, output + header_length);
  }
  if (!ok) return int_result(env, NOT_AUTHENTIC);
  if (output != input) memmove(output, input, header_length);
  return int_result(env, (int32_t)(header_length + payload_length));
}

// openRtcp(opener, input, output) -> length written to output (the compound RTCP packet, without
// SRTCP index and tag), or -1 when the packet does not authenticate.
static napi_value open_rtcp(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3) {
    return srtp_throw(env, "openRtcp(opener, input, output) expects 3 arguments");
  }
  SrtpContext *opener = srtp_context_of(env, argv[0], 1);
  if (opener == NULL) return NULL;
  uint8_t *input, *output;
  size_t input_length, output_length;
  if (!srtp_read_buffer(env, argv[1], &input, &input_length) ||
      !srtp_read_buffer(env, argv[2], &output, &output_length)) {
    return srtp_throw(env, "openRtcp expects an input Buffer and an output Buffer");
  }
  if (input_length > INT32_MAX) return srtp_throw(env, "the packet is too large");
  int gcm = opener->profile == PROFILE_AEAD_AES_128_GCM;
  size_t tag_length = gcm ? GCM_TAG_LENGTH : CM_TAG_LENGTH;
  if (input_length < RTCP_FIXED_HEADER + SRTCP_INDEX_LENGTH + tag_length) return int_result(env, NOT_AUTHENTIC);
  size_t rtcp_length = input_length - SRTCP_INDEX_LENGTH - tag_length;
  if (output_length < rtcp_length) return srtp_throw(env, "the output is too short for the RTCP packet");
  // GCM (RFC 7714): header, ciphertext, tag, E and index. AES-CM (RFC 3711): header, ciphertext, E and
  // index, tag.
  const uint8_t *trailer = gcm ? input + input_length - SRTCP_INDEX_LENGTH : input + rtcp_length;
  const uint8_t *tag = gcm ? input + rtcp_length : input + input_length - CM_TAG_LENGTH;
  int encrypted = trailer[0] >> 7;
  uint32_t index = read_u32(trailer) & 0x7fffffff;
  uint32_t ssrc = read_u32(input + 4);
  size_t body_length = rtcp_length - RTCP_FIXED_HEADER;
  int ok;
  if (gcm) {
    uint8_t iv[12];
    // RFC 7714 section 9.1: 00 00 || SSRC || 00 00 || index, exclusive-or the salt.
    uint8_t index_bytes[4];
    gcm_iv(iv, opener->salt, ssrc, 0, 0);
    write_u32(index_bytes, index);
    for (int i = 0; i < 4; i++) iv[8 + i] ^= index_bytes[i];
    ok = encrypted ? gcm_open(opener, iv, input, RTCP_FIXED_HEADER, trailer, SRTCP_INDEX_LENGTH,
                              input + RTCP_FIXED_HEADER, body_length, output + RTCP_FIXED_HEADER, tag)
                   : gcm_open(opener, iv, input, rtcp_length, trailer, SRTCP_INDEX_LENGTH, NULL, 0, output, tag);
    if (ok && !encrypted && output != input) memmove(output + RTCP_FIXED_HEADER, input + RTCP_FIXED_HEADER, body_length);
  } else {
    uint8_t iv[16];
    counter_mode_iv(iv, opener->salt, ssrc, index >> 16, index & 0xffff);
    ok = counter_mode_authentic(opener, input, rtcp_length + SRTCP_INDEX_LENGTH, NULL, 0, tag);
    if (ok && encrypted) {
      ok = counter_mode_decrypt(opener, iv, input + RTCP_FIXED_HEADER, body_length, output + RTCP_FIXED_HEADER);
    } else if (ok && output != input) {
      memmove(output + RTCP_FIXED_HEADER, input + RTCP_FIXED_HEADER, body_length);
    }
  }
  if (!ok) return int_result(env, NOT_AUTHENTIC);
  if (output != input) memmove(output, input, RTCP_FIXED_HEADER);
  return int_result(env, (int32_t)rtcp_length);
}

void register_srtp_opener(napi_env env, napi_value exports) {
  napi_value function;
  // Non-NULL callback data: the context opens.
  napi_create_function(env, "createOpener", NAPI_AUTO_LENGTH, srtp_create_context, (void *)1, &function);
  napi_set_named_property(env, exports, "createOpener", function);
  napi_create_function(env, "openRtp", NAPI_AUTO_LENGTH, open_rtp, NULL, &function);
  napi_set_named_property(env, exports, "openRtp", function);
  napi_create_function(env, "openRtcp", NAPI_AUTO_LENGTH, open_rtcp, NULL, &function);
  napi_set_named_property(env, exports, "openRtcp", function);
}
