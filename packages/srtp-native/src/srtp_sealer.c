// SRTP protection (RFC 3711 AES_CM_128_HMAC_SHA1_80, RFC 7714 AEAD_AES_128_GCM) of outgoing RTP
// packets with cipher contexts kept per session: Node's crypto module can set a new IV only on a new
// cipher object, which costs about ten times the encryption itself per packet. The OpenSSL that
// Node links provides the primitives.
#include <string.h>

#include "datagram_sender.h"
#include "srtp_context.h"
#include "srtp_opener.h"

// seal(sealer, packet, headerLength, payload, rolloverCounter) -> packet length
// packet holds the RTP header and room for the payload and the tag; payload (another Buffer) is
// encrypted into it after the header.
static napi_value seal(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5) {
    return srtp_throw(env, "seal(sealer, packet, headerLength, payload, rolloverCounter) expects 5 arguments");
  }
  SrtpContext *sealer = srtp_context_of(env, argv[0], 0);
  if (sealer == NULL) return NULL;
  uint8_t *packet, *plaintext;
  size_t packet_length, plaintext_length;
  uint32_t header_length, payload_length, rollover_counter;
  if (!srtp_read_buffer(env, argv[1], &packet, &packet_length) ||
      napi_get_value_uint32(env, argv[2], &header_length) != napi_ok ||
      !srtp_read_buffer(env, argv[3], &plaintext, &plaintext_length) ||
      napi_get_value_uint32(env, argv[4], &rollover_counter) != napi_ok) {
    return srtp_throw(env, "seal expects a packet Buffer, a header length, a payload Buffer and a rollover counter");
  }
  if (plaintext_length > UINT32_MAX / 2) return srtp_throw(env, "the payload is too large");
  payload_length = (uint32_t)plaintext_length;
  size_t tag_length = sealer->profile == PROFILE_AEAD_AES_128_GCM ? GCM_TAG_LENGTH : CM_TAG_LENGTH;
  if (header_length < RTP_FIXED_HEADER || (size_t)header_length + payload_length + tag_length > packet_length) {
    return srtp_throw(env, "the packet is too short for its header, payload and tag");
  }
  uint8_t *payload = packet + header_length;
  uint32_t sequence_number = ((uint32_t)packet[2] << 8) | packet[3];
  uint32_t ssrc = read_u32(packet + 8);
  uint8_t iv[16] = {0};
  int written = 0;
  int ok;
  if (sealer->profile == PROFILE_AEAD_AES_128_GCM) {
    gcm_iv(iv, sealer->salt, ssrc, rollover_counter, sequence_number);
    ok = EVP_EncryptInit_ex(sealer->cipher, NULL, NULL, NULL, iv) == 1 &&
         EVP_EncryptUpdate(sealer->cipher, NULL, &written, packet, (int)header_length) == 1 &&
         EVP_EncryptUpdate(sealer->cipher, payload, &written, plaintext, (int)payload_length) == 1 &&
         EVP_EncryptFinal_ex(sealer->cipher, payload + written, &written) == 1 &&
         EVP_CIPHER_CTX_ctrl(sealer->cipher, EVP_CTRL_GCM_GET_TAG, GCM_TAG_LENGTH, payload + payload_length) == 1;
  } else {
    counter_mode_iv(iv, sealer->salt, ssrc, rollover_counter, sequence_number);
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
  if (!ok) return srtp_throw(env, "OpenSSL could not encrypt the packet");
  napi_value result;
  napi_create_uint32(env, header_length + payload_length + (uint32_t)tag_length, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value function;
  napi_create_function(env, "createSealer", NAPI_AUTO_LENGTH, srtp_create_context, NULL, &function);
  napi_set_named_property(env, exports, "createSealer", function);
  napi_create_function(env, "seal", NAPI_AUTO_LENGTH, seal, NULL, &function);
  napi_set_named_property(env, exports, "seal", function);
  register_srtp_opener(env, exports);
  register_datagram_sender(env, exports);
  return exports;
}
