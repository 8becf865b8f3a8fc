import type { SfuOptionsInput } from '@collab-suite/webrtc-sfu';
import type { ServerConfig } from '../config.js';

/** The SFU's options from the configuration. */
export function sfuOptions(config: ServerConfig): SfuOptionsInput {
  const { meetings } = config;
  return {
    ice: {
      announcedAddresses: meetings.announcedAddresses,
      hostAddresses: meetings.hostAddresses,
      onlyAddresses: meetings.onlyAddresses,
      ...(meetings.portRange ? { portRange: meetings.portRange } : {}),
      servers: meetings.iceServers,
      gatherServers: meetings.sfuStunServers,
    },
    limits: {
      sessionsPerRouter: meetings.maxParticipants,
      keyframeRequestIntervalMs: meetings.keyframeRequestIntervalMs,
    },
    bandwidth: meetings.bandwidth,
    ...(meetings.audioMixedSpeakers === undefined
      ? {}
      : { audio: { mixedSpeakers: meetings.audioMixedSpeakers } }),
  };
}
