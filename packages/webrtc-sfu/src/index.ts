export {
  AudioMixer,
  type AudioMixerOptions,
  type AudioMixerStats,
  frameMs,
  type MixOutput,
} from './audio/audio-mixer.js';
export {
  DominantSpeakerDetector,
  type DominantSpeakerOptions,
  type SpeakerLevel,
} from './audio/dominant-speaker.js';
export {
  type AudioCodec,
  type AudioDecoder,
  type AudioEncoder,
  type OpusApplication,
  opusCodec,
  rawPcmCodec,
} from './audio/opus-codec.js';
export { frameLevelDbov, TalkingDetector, type TalkingDetectorOptions } from './audio/talking-detector.js';
export { BandwidthEstimator, type BandwidthEstimatorOptions } from './bandwidth/bandwidth-estimator.js';
export { streamToExplore } from './bandwidth/exploration.js';
export { type AllocationStream, allocateLayers } from './bandwidth/layer-allocation.js';
export { BandwidthProbe, type ProbeVerdict, type ProbeVerdictOptions } from './bandwidth/probe.js';
export { Prober, type ProberOptions, type ProbeStats } from './bandwidth/prober.js';
export { type FeedbackResult, transportFeedbackResults } from './bandwidth/transport-feedback.js';
export { UpgradeHold } from './bandwidth/upgrade-hold.js';
export {
  Consumer,
  type ConsumerEvents,
  type ConsumerStats,
  type PacketSentListener,
} from './consumer.js';
export { isSfuError, SfuError, type SfuErrorCode, type SfuErrorOptions, sfuErrorCodes } from './errors.js';
export {
  type IceServer,
  iceServerSchema,
  parseSfuOptions,
  type SfuOptions,
  type SfuOptionsInput,
  sfuOptionsSchema,
} from './options.js';
export {
  Producer,
  type ProducerEvents,
  type ProducerStats,
  qualityLayerIndex,
  type StreamKind,
  type StreamQuality,
} from './producer.js';
export { ProducerLayer } from './producer-layer.js';
export { type DominantSpeakerChange, Router, type RouterEvents, type TalkingChange } from './router.js';
export { announceAddresses } from './sdp/announce-addresses.js';
export {
  parseSdp,
  type SdpCodec,
  type SdpDirection,
  type SdpMediaSection,
  type SdpSummary,
} from './sdp/parse-sdp.js';
export {
  type ChosenCodec,
  chooseCodec,
  type SdpPurpose,
  type ValidatedSdp,
  validateSdp,
} from './sdp/validate-sdp.js';
export { Session, type SessionEvents, type SubscriptionUpdate } from './session.js';
export { createSfu, type Sfu, type SfuPorts } from './sfu.js';
export type { SfuStats } from './sfu-stats.js';
export {
  type StreamRef,
  type SubscribedStream,
  type SubscribeRef,
  type SubscriptionOffer,
  streamKey,
} from './subscription-connection.js';
export { type EventMap, type Listener, TypedEmitter } from './typed-events.js';
export { type SfuWorkerHandler, serveSfuWorker } from './worker/serve-sfu-worker.js';
export {
  createSfuWorker,
  SFU_WORKER_CLOSE,
  type SfuWorker,
  type SfuWorkerOptions,
} from './worker/sfu-worker.js';
