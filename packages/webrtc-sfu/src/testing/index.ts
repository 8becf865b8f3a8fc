export { AudioTestClient, type AudioTestClientOptions } from './audio-test-client.js';
export {
  type EarlyClientHelloCounts,
  isCookielessClientHello,
  sendClientHelloBeforeNomination,
} from './early-client-hello.js';
export { delayStunResponses } from './late-stun-responses.js';
export {
  createLoopbackPeer,
  type LoopbackPeerOptions,
  localSdp,
  loopbackSfuOptions,
  waitFor,
  waitForQuiet,
} from './loopback.js';
export { moveLoopbackPeer, selectedLocalAddress } from './moving-address.js';
export { recentToneShare, rms, sine, toneShare } from './signal.js';
export {
  layerFrameBase,
  type SimulcastSignalling,
  type SimulcastTestLayer,
  SimulcastTestPublisher,
} from './simulcast-test-publisher.js';
export { readSyntheticVp8, type SyntheticFrameOptions, syntheticVp8Frame } from './synthetic-vp8.js';
export { type LimitBehaviour, TransportFeedbackSender } from './transport-feedback-sender.js';
export {
  type PublishRate,
  type ReceivedPacket,
  VideoTestPublisher,
  VideoTestSubscriber,
  wallClockMs,
} from './video-test-clients.js';
