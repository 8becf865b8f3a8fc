import { z } from 'zod';
import { SfuError } from './errors.js';

const ipAddress = z.union([z.ipv4(), z.ipv6()]);
const port = z.number().int().min(1024).max(65535);

/** A STUN or TURN server, in the shape of the browser's `RTCIceServer`. */
export const iceServerSchema = z.strictObject({
  urls: z.union([
    z.string().regex(/^(stun|stuns|turn|turns):/, 'a stun:, stuns:, turn: or turns: URL'),
    z.array(z.string().regex(/^(stun|stuns|turn|turns):/, 'a stun:, stuns:, turn: or turns: URL')).min(1),
  ]),
  username: z.string().optional(),
  credential: z.string().optional(),
});

/** A STUN or TURN server handed to clients. */
export type IceServer = z.infer<typeof iceServerSchema>;

const iceSchema = z
  .strictObject({
    /** Extra local addresses to gather host candidates on; werift skips loopback unless listed here. */
    hostAddresses: z.array(ipAddress).default([]),
    /**
     * When not empty, only candidate pairs whose local and remote addresses are both in this list are
     * tried: a single-homed server, or tests that must stay on loopback.
     */
    onlyAddresses: z.array(ipAddress).default([]),
    /** Public addresses of a 1:1 NAT, announced as extra host candidates with the gathered ports. */
    announcedAddresses: z.array(ipAddress).default([]),
    /** UDP port range `[min, max]` for media sockets; `undefined` lets the system pick. */
    portRange: z
      .tuple([port, port])
      .refine(([min, max]) => min < max, 'the first port must be lower than the second')
      .optional(),
    /** Gather IPv6 host candidates too. */
    useIpv6: z.boolean().default(false),
    /** STUN and TURN servers that the application hands to clients (`Sfu.iceServers`). */
    servers: z.array(iceServerSchema).default([]),
    /**
     * STUN server the SFU itself asks for its public address (a server-reflexive candidate), as a
     * `stun:host:port` URL. None by default: the SFU contacts no outside server, and a public address
     * behind a 1:1 NAT is better given in `announcedAddresses`. werift asks one server, so at most one.
     */
    gatherServers: z
      .array(z.string().regex(/^stun:[^\s]+$/, 'a stun:host:port URL'))
      .max(1, 'at most one STUN server (werift asks only one)')
      .default([]),
  })
  .prefault({});

const limitsSchema = z
  .strictObject({
    /** Sessions in one router. 100 matches the original's video room (`publishers 100`). */
    sessionsPerRouter: z.number().int().min(1).default(100),
    /** Streams one session may watch at once; each costs one SRTP encryption per forwarded packet. */
    subscriptionsPerSession: z.number().int().min(1).default(50),
    /** Longest accepted SDP in bytes; a browser offer is a few kilobytes, so more is a mistake or abuse. */
    sdpBytes: z.number().int().min(1024).default(65_536),
    /**
     * Forwarded packets each consumer keeps for retransmission on NACK. 512 packets are about
     * 4 s of 1 Mbit/s video: longer than any round trip worth repairing.
     */
    retransmissionPackets: z.number().int().min(16).max(32_768).default(512),
    /**
     * At most one keyframe request per publisher and simulcast layer per this many ms; many new
     * subscribers, or many subscribers' PLIs, cost one keyframe.
     */
    keyframeRequestIntervalMs: z.number().int().min(0).default(500),
  })
  .prefault({});

const talkingSchema = z
  .strictObject({
    /** Average level over `windowMs` above which a participant starts talking, in dBov (0 is full scale). */
    startDbov: z.number().max(0).default(-50),
    /** Average level below which a talking participant stops (lower than `startDbov`: hysteresis). */
    stopDbov: z.number().max(0).default(-58),
    /** Averaging window; 200 ms matches the original's `audio_active_packets 10` of 20 ms packets. */
    windowMs: z.number().int().min(20).default(200),
    /** How long the level must stay below `stopDbov` before talking ends, so pauses between words do not flap. */
    holdMs: z.number().int().min(0).default(600),
  })
  .prefault({})
  .refine((talking) => talking.stopDbov <= talking.startDbov, 'stopDbov must not be above startDbov');

const dominantSpeakerSchema = z
  .strictObject({
    /** How long a talking participant must stay the loudest before becoming the dominant speaker. */
    holdMs: z.number().int().min(20).default(1_000),
    /** How much louder than a dominant speaker who still talks the challenger must be, in dB. */
    marginDb: z.number().min(0).max(60).default(6),
  })
  .prefault({});

const audioSchema = z
  .strictObject({
    /** Mixing rate in Hz. 16 kHz wideband speech like the original's audio bridge, a third of 48 kHz's work. */
    sampleRate: z.union([z.literal(16_000), z.literal(24_000), z.literal(48_000)]).default(16_000),
    /** Opus bitrate of each mixed stream in bit/s. */
    bitrate: z.number().int().min(6_000).max(510_000).default(32_000),
    /**
     * Opus encoder complexity of the mixed streams, 0 to 10; libopus's own default, 9. Lower is not
     * always cheaper: at 16 kHz, 4 to 6 cost about twice what 9 does here (bench/README.md).
     */
    complexity: z.number().int().min(0).max(10).default(9),
    /**
     * Opus encoder mode of the mixed streams: `voip` (libopus picks its speech or its transform mode
     * from the signal) or `restricted-lowdelay` (always the transform mode: cheaper at low
     * complexity, less delay, no speech model; bench/README.md has the costs).
     */
    application: z.enum(['voip', 'restricted-lowdelay']).default('voip'),
    /** Decoded frames queued per speaker; beyond it the oldest are dropped so delay stays under 100 ms. */
    jitterFrames: z.number().int().min(1).max(50).default(5),
    /**
     * Frames a speaker's queue must hold before it is mixed, at its start and after it ran dry: 2
     * (40 ms) absorbs the phase between its packets and the mixer's clock and most network jitter.
     */
    prebufferFrames: z.number().int().min(1).max(50).default(2),
    talking: talkingSchema,
    dominantSpeaker: dominantSpeakerSchema,
    /**
     * Most participants mixed in one 20 ms frame: with more sending at once, the loudest talkers
     * are heard (a place changes hands only for a talker 6 dB louder). Everyone else shares one
     * encoded mix, so ten people talking at once cost 4 encodes instead of 10. At least 1.
     */
    mixedSpeakers: z.number().int().min(1).max(1_000).default(3),
  })
  .prefault({});

const probeSchema = z
  .strictObject({
    /**
     * Before a subscriber's stream climbs to a higher layer, send it padding up to what the next
     * layer up needs for `durationMs` and climb only if its transport-wide feedback shows neither
     * loss nor a growing delay. Needs transport-wide feedback and RTX (the padding goes on the RTX
     * SSRC); without them a stream climbs on the estimate alone. On by default: with Chromium behind
     * a 300 kbit/s shaped link, probes left the viewer on its low layer with 1 switch in three runs
     * where climbing on the estimate alone made 8 switches and froze its video for most of the time.
     */
    enabled: z.boolean().default(true),
    /**
     * How long a probe sends padding, ms. Long enough that a token-bucket shaper's burst (8 kB is
     * 64 kbit: a fifth of a 300 kbit/s link for a second) cannot hide the limit.
     */
    durationMs: z.number().int().min(100).max(5_000).default(1_000),
    /**
     * A probe sends this times what the climb needs, so a link that carries the probe carries the
     * new layer with room for its keyframe and its bitrate's swings.
     */
    overshoot: z.number().min(1).max(2).default(1.25),
    /** Padding never exceeds this many bit/s per subscriber, whatever the climb needs. */
    maxPaddingBitrate: z.number().int().min(10_000).max(20_000_000).default(2_500_000),
    /** Padding goes out in steps this many ms apart (pacing, not a burst). */
    paceIntervalMs: z.number().int().min(5).max(100).default(10),
    /** A probe fails when more than this share of its packets is reported lost (0.02: 2 %). */
    maxLoss: z.number().min(0).max(0.5).default(0.02),
    /** A probe fails when the one-way delay grows by more than this from its first third to its last, ms. */
    maxDelayGrowthMs: z.number().min(1).max(1_000).default(30),
  })
  .prefault({});

const bandwidthSchema = z
  .strictObject({
    /** A subscriber's estimate before its first transport-wide congestion control feedback, bit/s. */
    initialBitrate: z.number().int().min(10_000).default(1_000_000),
    /** The estimate never drops below this, bit/s. */
    minBitrate: z.number().int().min(10_000).default(50_000),
    /** The estimate never climbs above this, bit/s. */
    maxBitrate: z.number().int().min(10_000).default(20_000_000),
    /** Growth of the estimate per second while feedback shows neither loss nor queuing (0.15: 15 %). */
    increasePerSecond: z.number().min(0.01).max(2).default(0.15),
    /** Climbing to a higher layer needs its bitrate times this to fit the budget (hysteresis). */
    upgradeHeadroom: z.number().min(1).max(3).default(1.15),
    /**
     * After a stream steps down (or pauses), it climbs again only after this many ms; doubled (up to
     * 4 times) each time a step down or a failed probe undoes a climb of the last 5 s. Also the
     * shortest time between two probes above the estimate.
     */
    upgradeHoldMs: z.number().int().min(0).default(3_000),
    /** Bit/s kept out of a subscriber's video budget for its audio, which has its own connection. */
    audioReserveBitrate: z.number().int().min(0).default(48_000),
    /** How often each subscriber's layers are re-chosen from its estimate, ms. */
    allocationIntervalMs: z.number().int().min(50).max(10_000).default(500),
    /** Bandwidth probes before climbing to a higher layer. */
    probe: probeSchema,
  })
  .prefault({})
  .refine(
    (bandwidth) => bandwidth.minBitrate <= bandwidth.maxBitrate,
    'minBitrate must not be above maxBitrate',
  );

/** Options of {@link createSfu}, as written by the caller. */
const srtpSchema = z
  .strictObject({
    /**
     * Encrypt outgoing media with the optional `@collab-suite/srtp-native` addon when it is
     * installed: a cipher context per SRTP session instead of werift's cipher object per packet
     * (about a tenth of the CPU per packet). Without the addon, werift's encryption is used either way.
     */
    native: z.boolean().default(true),
  })
  .prefault({});

export const sfuOptionsSchema = z.strictObject({
  ice: iceSchema,
  limits: limitsSchema,
  audio: audioSchema,
  bandwidth: bandwidthSchema,
  srtp: srtpSchema,
});

/** Options of {@link createSfu} as the caller may write them: everything optional. */
export type SfuOptionsInput = z.input<typeof sfuOptionsSchema>;

/** Fully defaulted options. */
export type SfuOptions = z.output<typeof sfuOptionsSchema>;

/**
 * Parses options once into their fully defaulted form.
 * @throws SfuError `invalid_options` naming the first wrong field, what it expected and what came.
 */
export function parseSfuOptions(input: SfuOptionsInput | undefined): SfuOptions {
  const result = sfuOptionsSchema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const segments = issue?.path.map(String) ?? [];
  if (issue?.code === 'unrecognized_keys' && issue.keys[0] !== undefined) segments.push(issue.keys[0]);
  const path = segments.join('.') || '(root)';
  const message =
    issue?.code === 'unrecognized_keys'
      ? 'unknown option (check its spelling)'
      : (issue?.message ?? 'invalid');
  throw new SfuError('invalid_options', `SFU option \`${path}\`: ${message}`, {
    details: {
      option: path,
      issues: result.error.issues.map((entry) => ({ path: entry.path.join('.'), message: entry.message })),
    },
  });
}
